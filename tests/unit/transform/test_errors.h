// Helpers for checking error messages.
#pragma once

#include <string>

#include "relax/support/diagnostic.h"

namespace relax::test {

/// The what() of the relax::Error thrown by `fn`, or "" when nothing is thrown.
template <class F>
std::string error_of(F&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace relax::test

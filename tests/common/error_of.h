// error_of: the relax::Error message that a piece of code throws, for tests of error paths.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "relax/support/diagnostic.h"

namespace relax::test {

/// Runs `body` and returns the relax::Error message it throws ("" and a test failure if none).
template <class F>
std::string error_of(F&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a relax::Error";
  return "";
}

}  // namespace relax::test

// What every fuzz target shares: the contract check around the code under test.
//
// A fuzz input may make the code under test throw relax::Error (a user error: the driver's
// exit 1) and nothing else. An InternalError or any other exception escaping is a finding,
// reported like a crash (libFuzzer saves the input): the driver would exit 2 on it, which the
// contract reserves for genuine bugs. Sanitizer reports, leaks and timeouts are libFuzzer's.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "relax/support/diagnostic.h"

namespace relax::fuzz {

/// Runs `body`; returns normally when it succeeds or throws relax::Error, aborts otherwise.
template <typename F>
void expect_user_errors_only(const char* target, F&& body) {
  try {
    body();
  } catch (const relax::Error&) {
    // A clean user error.
  } catch (const relax::InternalError& e) {
    std::fprintf(stderr, "%s: internal error escaped: %s\n", target, e.what());
    std::abort();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: non-relax exception escaped: %s\n", target, e.what());
    std::abort();
  }
}

/// Aborts with `what` when a property of the code under test does not hold.
inline void property(bool holds, const char* target, const std::string& what) {
  if (holds) return;
  std::fprintf(stderr, "%s: property violated: %s\n", target, what.c_str());
  std::abort();
}

}  // namespace relax::fuzz

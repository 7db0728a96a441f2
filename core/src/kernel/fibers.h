// Cooperative fibers for the reference interpreter's GPU threads (interpreter_gpu.cc): each
// thread of a block region that contains barriers runs on its own fiber, and the scheduler
// resumes the fibers one after another until each reaches its next barrier or its end.
//
// A Fiber owns an mmap'd stack (with a guard page below it) and is reusable: start() may be
// called again once the previous function has returned. Switching uses ucontext
// (makecontext/swapcontext); under AddressSanitizer the switches are announced to it.
//
// Contract:
//  - resume() runs the fiber from where it stopped until it calls yield() or its function
//    returns; it is called from outside the fiber (never from inside one).
//  - An exception that escapes the function is caught on the fiber's own stack and kept
//    (error()); it never crosses a stack switch. The caller rethrows it if it wants to.
//  - A fiber suspended in yield() holds live frames; to release them, make yield()'s caller
//    throw (the interpreter throws a private cancellation exception) and resume it to its end.
//    Destroying a suspended fiber unmaps its stack without running those frames' destructors.
#pragma once

#include <ucontext.h>

#include <cstddef>
#include <exception>
#include <functional>

namespace relax::tir::interp {

class Fiber {
 public:
  /// Bytes of stack per fiber: the interpreter recurses once per nested statement and
  /// expression node, so this bounds the nesting depth of a kernel run on a fiber.
  static const size_t kStackBytes;

  Fiber();
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  /// Prepares the fiber to run `fn` from its start at the next resume(). The fiber must not be
  /// suspended mid-way (it is new, or its previous function has returned).
  void start(std::function<void()> fn);
  /// Runs the fiber until it yields or its function returns.
  void resume();
  /// From inside the fiber: switches back to the caller of resume().
  void yield();

  /// Finishes a started fiber that was never resumed, without running its function.
  void discard();
  /// True between start() and the first resume().
  bool fresh() const { return fresh_; }
  /// True once the function has returned or thrown (and before the first start()).
  bool done() const { return done_; }
  /// The exception the function threw, if any (reset by start()).
  std::exception_ptr error() const { return error_; }

 private:
  static void entry();
  void switch_out(bool finishing);

  ucontext_t ctx_{};
  ucontext_t caller_{};
  char* map_ = nullptr;  // the mapping: guard page, then the stack
  size_t map_bytes_ = 0;
  std::function<void()> fn_;
  bool done_ = true;
  bool running_ = false;
  bool fresh_ = false;  // started, not yet resumed
  std::exception_ptr error_;
  // AddressSanitizer bookkeeping: the fake stack saved across a switch, and the bounds of the
  // stack that resumed this fiber.
  void* fake_stack_ = nullptr;
  const void* caller_bottom_ = nullptr;
  size_t caller_size_ = 0;
};

}  // namespace relax::tir::interp

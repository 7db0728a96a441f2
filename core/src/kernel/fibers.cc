// Cooperative fibers over ucontext (fibers.h).
#include "fibers.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "relax/support/diagnostic.h"

#if defined(__SANITIZE_ADDRESS__)
#define RELAX_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RELAX_FIBER_ASAN 1
#endif
#endif

#ifdef RELAX_FIBER_ASAN
extern "C" void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom,
                                               size_t size);
extern "C" void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old,
                                                size_t* size_old);
#endif

namespace relax::tir::interp {

namespace {

// Announce a stack switch to AddressSanitizer (no-ops in other builds).
void asan_start(void** fake_save, const void* bottom, size_t size) {
#ifdef RELAX_FIBER_ASAN
  __sanitizer_start_switch_fiber(fake_save, bottom, size);
#else
  (void)fake_save, (void)bottom, (void)size;
#endif
}
void asan_finish(void* fake_save, const void** bottom_old, size_t* size_old) {
#ifdef RELAX_FIBER_ASAN
  __sanitizer_finish_switch_fiber(fake_save, bottom_old, size_old);
#else
  (void)fake_save, (void)bottom_old, (void)size_old;
#endif
}

size_t page_bytes() {
  static const size_t page = size_t(sysconf(_SC_PAGESIZE));
  return page;
}

/// The fiber whose entry() runs next on this host thread (makecontext passes no pointer).
thread_local Fiber* g_starting = nullptr;

}  // namespace

#ifdef RELAX_FIBER_ASAN
const size_t Fiber::kStackBytes = size_t(8) << 20;
#else
const size_t Fiber::kStackBytes = size_t(2) << 20;
#endif

Fiber::Fiber() = default;

Fiber::~Fiber() {
  // A fiber suspended mid-way would leak the objects on its stack; the interpreter always runs
  // its fibers to their end (fibers.h).
  if (map_) munmap(map_, map_bytes_);
}

void Fiber::start(std::function<void()> fn) {
  RX_ICHECK(done_ && !running_) << "Fiber::start on a fiber that has not finished";
  if (!map_) {
    // MAP_NORESERVE: only the pages a thread touches are ever backed.
    map_bytes_ = kStackBytes + page_bytes();
    void* p = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    RX_CHECK(p != MAP_FAILED) << "the interpreter could not map a " << (kStackBytes >> 20)
                              << " MiB stack for a GPU thread: " << std::strerror(errno);
    map_ = static_cast<char*>(p);
    mprotect(map_, page_bytes(), PROT_NONE);  // guard page: an overflow faults
  }
  RX_CHECK(getcontext(&ctx_) == 0) << "getcontext failed: " << std::strerror(errno);
  ctx_.uc_stack.ss_sp = map_ + page_bytes();
  ctx_.uc_stack.ss_size = kStackBytes;
  ctx_.uc_link = nullptr;
  makecontext(&ctx_, &Fiber::entry, 0);
  fn_ = std::move(fn);
  error_ = nullptr;
  done_ = false;
  fake_stack_ = nullptr;
  g_starting = nullptr;
  fresh_ = true;
}

void Fiber::resume() {
  RX_ICHECK(!done_ && !running_) << "Fiber::resume of a finished or running fiber";
  if (fresh_) {
    g_starting = this;
    fresh_ = false;
  }
  running_ = true;
  void* fake = nullptr;
  asan_start(&fake, map_ + page_bytes(), kStackBytes);
  swapcontext(&caller_, &ctx_);
  asan_finish(fake, nullptr, nullptr);
  running_ = false;
}

void Fiber::discard() {
  RX_ICHECK(fresh_ && !done_) << "Fiber::discard of a fiber that has run";
  fn_ = nullptr;
  fresh_ = false;
  done_ = true;
}

void Fiber::yield() {
  RX_ICHECK(running_ && !done_) << "Fiber::yield outside the fiber";
  switch_out(false);
}

void Fiber::switch_out(bool finishing) {
  // A finishing fiber's fake stack is released (null save slot); a yielding one keeps it.
  asan_start(finishing ? nullptr : &fake_stack_, caller_bottom_, caller_size_);
  swapcontext(&ctx_, &caller_);
  asan_finish(fake_stack_, &caller_bottom_, &caller_size_);
}

void Fiber::entry() {
  Fiber* self = g_starting;
  g_starting = nullptr;
  asan_finish(nullptr, &self->caller_bottom_, &self->caller_size_);
  try {
    self->fn_();
  } catch (...) {
    self->error_ = std::current_exception();
  }
  // Out of the handler before switching: no exception is being handled on this stack.
  self->fn_ = nullptr;
  self->done_ = true;
  self->switch_out(true);
  std::abort();  // a finished fiber is never resumed
}

}  // namespace relax::tir::interp

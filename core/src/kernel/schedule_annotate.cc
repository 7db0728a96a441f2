// Loop annotations: parallel, vectorize, unroll, bind (tir/schedule.h).
//
// Each changes the kind of one serial loop (and for bind its thread tag); the body is kept.
// A loop whose iterations are to run concurrently (parallel, vectorized, thread-bound) may
// bind only spatial iteration variables of the blocks under it: iterations of a reduce
// variable accumulate into one element, so running them at once would race.
#include "relax/support/diagnostic.h"
#include "schedule_internal.h"

namespace relax::tir {

namespace {

using sched::find_loop;
using sched::LoopLoc;

/// Checks that `loop` is serial and, when `concurrent`, binds only spatial iteration vars.
void check_loop(const char* prim, const For* loop, bool concurrent, bool reduce_ok = false) {
  const std::string& name = loop->loop_var->name;
  if (loop->kind == ForKind::kThreadBinding)
    RX_THROW() << prim << ": loop " << name << " is already bound to " << loop->thread_tag;
  RX_CHECK(loop->kind == ForKind::kSerial)
      << prim << ": loop " << name << " is already " << for_kind_name(loop->kind)
      << "; only a serial loop can be annotated";
  if (!concurrent) return;
  for (const BlockRealize* r : sched::realizes_under(loop->body)) {
    const Block& b = *r->block;
    for (size_t i = 0; i < b.iter_vars.size(); ++i) {
      if (b.iter_vars[i]->type == IterVarType::kSpatial) continue;
      if (reduce_ok && b.iter_vars[i]->type == IterVarType::kReduce) continue;
      RX_CHECK(!tir::uses_var(r->iter_values[i], loop->loop_var.get()))
          << prim << ": loop " << name << " binds the " << iter_var_type_name(b.iter_vars[i]->type)
          << " iteration variable " << b.iter_vars[i]->var->name << " of block " << b.name
          << "; only loops over spatial iteration variables can run concurrently";
    }
  }
}

Ref<PrimFunc> with_kind(const Ref<PrimFunc>& func, const For* loop, ForKind kind,
                        const std::string& tag) {
  Stmt f = make_ref<For>(loop->loop_var, loop->min, loop->extent, kind, loop->body, tag,
                         loop->annotations);
  return with_body(func, sched::replace_stmt(func->body, loop, f));
}

bool is_thread_tag(const std::string& tag) {
  for (const char* t : {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y",
                        "threadIdx.z", "vthread", "vthread.x", "vthread.y", "vthread.z"})
    if (tag == t) return true;
  return false;
}

}  // namespace

void Schedule::parallel(const LoopRV& loop) {
  const For* f = find_loop(func_->body, loop, "parallel").loop;
  check_loop("parallel", f, true);
  func_ = with_kind(func_, f, ForKind::kParallel, {});
}

void Schedule::vectorize(const LoopRV& loop) {
  const For* f = find_loop(func_->body, loop, "vectorize").loop;
  check_loop("vectorize", f, true);
  RX_CHECK(as_const_int(f->extent))
      << "vectorize: loop " << f->loop_var->name << " has extent " << to_string(f->extent)
      << ", not a constant; split it by a constant factor first";
  func_ = with_kind(func_, f, ForKind::kVectorized, {});
}

void Schedule::unroll(const LoopRV& loop) {
  const For* f = find_loop(func_->body, loop, "unroll").loop;
  check_loop("unroll", f, false);
  func_ = with_kind(func_, f, ForKind::kUnrolled, {});
}

void Schedule::bind(const LoopRV& loop, const std::string& thread_tag) {
  LoopLoc loc = find_loop(func_->body, loop, "bind");
  const For* f = loc.loop;
  RX_CHECK(is_thread_tag(thread_tag))
      << "bind: '" << thread_tag << "' is not a thread index (expected blockIdx.x/y/z, "
      << "threadIdx.x/y/z or vthread)";
  // A reduce loop may go to threadIdx: the GPU lowering (kernel/gpu_lower.h) turns the
  // block into a cross-thread reduction. Blocks never share a reduction.
  check_loop("bind", f, true, thread_tag.starts_with("threadIdx."));
  // Inside a loop bound to the same tag, the loop runs on the same thread index (the
  // cooperative copy of a shared tile inside the threads that use it): the iterations of the
  // outer loop must not differ in what runs under this one (they are all the thread's own),
  // and the extents must match.
  for (const For* o : loc.outer) {
    if (o->kind != ForKind::kThreadBinding || o->thread_tag != thread_tag) continue;
    const std::string where = "bind: loop " + f->loop_var->name + " is inside loop " +
                              o->loop_var->name + ", which is already bound to " + thread_tag;
    const int64_t *outer = as_const_int(o->extent), *inner = as_const_int(f->extent);
    RX_CHECK(outer && inner && *outer == *inner)
        << where << " with extent " << to_string(o->extent) << " (this loop has "
        << to_string(f->extent) << ")";
    RX_CHECK(!stmt_uses_var(Stmt(f), o->loop_var.get()))
        << where << ", and what it runs depends on that loop's variable";
  }
  func_ = with_kind(func_, f, ForKind::kThreadBinding, thread_tag);
}

}  // namespace relax::tir

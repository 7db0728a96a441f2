// Running passes: unit-level passes over a module's functions on a TBB arena, and the
// instrumented loop of run_passes.
//
// Determinism: each function is transformed on its own (its own builders and name supplies),
// results are stored by the function's index and put back in module order, and when several
// functions fail the error of the first one in module order is reported. So the output is
// the same whatever the thread count.
#include "relax/transform/pass_context.h"

#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "relax/ir/expr_functor.h"
#include "relax/ir/prim_func.h"

namespace relax::transform {

int PassContext::jobs() const {
  if (jobs_ > 0) return jobs_;
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : int(n);
}

namespace {

#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kThreadSanitizer = true;
#else
constexpr bool kThreadSanitizer = false;
#endif
#else
constexpr bool kThreadSanitizer = false;
#endif

/// Calls fn(i) for i in [0, n) on up to `jobs` threads; rethrows the error of the lowest i.
template <class F>
void parallel_over(size_t n, int jobs, const F& fn) {
  std::vector<std::exception_ptr> errors(n);
  auto guarded = [&](size_t i) {
    try {
      fn(i);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  if (jobs <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) guarded(i);
  } else if (kThreadSanitizer) {
    // TSan cannot see the synchronisation inside Debian's uninstrumented libtbb, and would
    // report every hand-over between its workers: plain threads instead, so that its reports
    // are about our code.
    std::atomic<size_t> next{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < jobs; ++t)
      threads.emplace_back([&] {
        for (size_t i = next++; i < n; i = next++) guarded(i);
      });
    for (auto& t : threads) t.join();
  } else {
    // More threads than the hardware has only adds contention (and a TBB warning).
    tbb::task_arena arena(std::min(jobs, tbb::info::default_concurrency()));
    arena.execute([&] { tbb::parallel_for(size_t(0), n, guarded); });
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

/// Applies a block transform to every dataflow block of a function (nested ones included).
class DataflowBlockRewriter : public ExprMutatorBase {
 public:
  DataflowBlockRewriter(const BlockTransform& fn, const PassArgs& args) : fn_(fn), args_(args) {}
  Block visit_binding_block(const Block& block) override {
    Block visited = ExprMutatorBase::visit_binding_block(block);
    if (!visited->is_dataflow()) return visited;
    Block out = fn_(visited, args_);
    RX_ICHECK(out.defined()) << "pass '" << args_.function_name << "' returned no block";
    return out;
  }

 private:
  const BlockTransform& fn_;
  const PassArgs& args_;
};

/// Transforms the functions of `mod` selected by `select` with `fn`, concurrently.
template <class Select, class Fn>
IRModule map_functions(const IRModule& mod, PassContext& ctx, const Select& select, const Fn& fn) {
  const auto& entries = mod.functions();
  std::vector<size_t> todo;
  for (size_t i = 0; i < entries.size(); ++i)
    if (select(entries[i].func)) todo.push_back(i);
  std::vector<BaseFunc> results(todo.size());
  parallel_over(todo.size(), ctx.jobs(), [&](size_t k) {
    const auto& e = entries[todo[k]];
    results[k] = fn(e.func, e.gv->name);
  });
  IRModule out = mod;
  for (size_t k = 0; k < todo.size(); ++k) {
    const auto& e = entries[todo[k]];
    RX_ICHECK(results[k].defined()) << "a pass returned no function for '" << e.gv->name << "'";
    if (!results[k].same_as(e.func)) out.update(e.gv->name, results[k]);
  }
  return out;
}

}  // namespace

IRModule Pass::operator()(const IRModule& mod, PassContext& ctx) const {
  const PassBody& body = reg_->body;
  auto is_function = [](const BaseFunc& f) { return f.is<Function>(); };
  if (const auto* fn = std::get_if<ModuleTransform>(&body)) return (*fn)(mod, options_, ctx);
  if (const auto* fn = std::get_if<FunctionTransform>(&body)) {
    return map_functions(mod, ctx, is_function,
                         [&](const BaseFunc& f, const std::string& name) -> BaseFunc {
                           PassArgs args{name, mod, options_, ctx};
                           return (*fn)(f.as_ref<Function>(), args);
                         });
  }
  if (const auto* fn = std::get_if<BlockTransform>(&body)) {
    return map_functions(mod, ctx, is_function,
                         [&](const BaseFunc& f, const std::string& name) -> BaseFunc {
                           PassArgs args{name, mod, options_, ctx};
                           DataflowBlockRewriter rewriter(*fn, args);
                           Expr out = rewriter.visit_expr(f);
                           return out.as_ref<Function>();
                         });
  }
  const auto& prim = std::get<PrimFuncTransform>(body);
  return map_functions(
      mod, ctx, [](const BaseFunc& f) { return f.is<tir::PrimFunc>(); },
      [&](const BaseFunc& f, const std::string& name) -> BaseFunc {
        PassArgs args{name, mod, options_, ctx};
        return prim(f.as_ref<tir::PrimFunc>(), args);
      });
}

IRModule run_passes(const std::vector<Pass>& passes, IRModule mod, PassContext& ctx) {
  const auto& instruments = ctx.instruments();
  for (const auto& i : instruments) i->begin_pipeline(passes, mod);
  try {
    for (const Pass& pass : passes) {
      for (const auto& i : instruments) i->before_pass(pass, mod);
      IRModule out;
      try {
        out = pass(mod, ctx);
        for (const auto& i : instruments) i->after_pass(pass, out);
      } catch (const std::exception& e) {
        for (const auto& i : instruments) i->on_failure(pass, mod, e);
        throw;
      }
      mod = std::move(out);
    }
  } catch (...) {
    for (const auto& i : instruments) i->end_pipeline();
    throw;
  }
  for (const auto& i : instruments) i->end_pipeline();
  return mod;
}

std::string Sequential::to_string() const {
  std::string out;
  for (const auto& p : passes_) {
    if (!out.empty()) out += ",";
    out += p.to_string();
  }
  return out;
}

}  // namespace relax::transform

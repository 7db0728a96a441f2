// SDK helpers for BYOC codegens (relax/transform/codegen.h, docs/sdk.md "Library offload").
//
//   r.add_codegen({"mylib", "offloads conv2d+bias+relu", my_codegen, ""});
//   r.add_function("mylib.conv2d_bias_relu",
//                  relax::sdk::dps_function("mylib.conv2d_bias_relu", [](auto& in, DLTensor* out) {
//                    ...  // read in[0..], write out
//                  }));
//
// A claimed function (attribute Codegen) wraps one call of a Composite function;
// composite_of() names its pattern, composite_calls() gives the ops in it, so a codegen picks
// the library routine and reads attributes (strides, padding) from the calls.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "relax/ir/expr.h"
#include "relax/ir/expr_functor.h"
#include "relax/ir/module.h"
#include "relax/runtime/ndarray.h"
#include "relax/runtime/packed_func.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/attrs.h"
#include "relax/transform/codegen.h"

namespace relax::sdk {

/// The Composite function a claimed function calls (or the function itself when it carries the
/// attribute), or null.
inline Ref<Function> composite_function(const Ref<Function>& func, const IRModule& mod) {
  if (func->attrs.defined() && func->attrs->has("Composite")) return func;
  struct Finder : ExprVisitor {
    const IRModule* mod = nullptr;
    Ref<Function> found;
    using ExprVisitor::visit_;
    void visit_(const GlobalVar* gv) override {
      auto f = mod->find(gv->name).as_ref<Function>();
      if (!found.defined() && f.defined() && f->attrs.defined() && f->attrs->has("Composite"))
        found = f;
    }
  } finder;
  finder.mod = &mod;
  finder.visit_expr(func);
  return finder.found;
}

/// The pattern name of the composite a claimed function calls ("mylib.conv2d_bias_relu"), or "".
inline std::string composite_of(const Ref<Function>& func, const IRModule& mod) {
  Ref<Function> c = composite_function(func, mod);
  return c.defined() ? get_string(c->attrs, "Composite", "") : "";
}

/// The op calls inside a composite function, in order (to read their attributes).
inline std::vector<Ref<Call>> composite_calls(const Ref<Function>& composite) {
  struct Collector : ExprVisitor {
    std::vector<Ref<Call>> calls;
    using ExprVisitor::visit_;
    void visit_(const Call* c) override {
      ExprVisitor::visit_(c);
      if (c->op.as<Op>()) calls.push_back(Ref<Call>(c));
    }
  } collector;
  if (composite.defined()) collector.visit_expr(composite);
  return collector.calls;
}

/// Elements of a tensor.
inline int64_t num_elements(const DLTensor& t) {
  int64_t n = 1;
  for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

/// A packed function in destination-passing style, as run-codegen calls it: every argument but
/// the last is an input tensor, the last is the output to write.
inline runtime::PackedFunc dps_function(
    std::string name, std::function<void(const std::vector<const DLTensor*>&, DLTensor*)> body) {
  return runtime::PackedFunc(name, [name, body](runtime::Args args) {
    RX_CHECK(!args.empty()) << name << ": no output argument";
    std::vector<const DLTensor*> in;
    for (size_t i = 0; i + 1 < args.size(); ++i) in.push_back(args[i].as_tensor().dltensor());
    body(in, args.back().as_tensor().mutable_dltensor());
    return runtime::Value();
  });
}

}  // namespace relax::sdk

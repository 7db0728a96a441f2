// PrimFunc: a tensor program in destination-passing style (DESIGN.md §4, RFC §D0).
//
// A PrimFunc takes handle parameters (one per buffer; buffer_map gives each its Buffer, whose
// `data` is the parameter itself) and scalar parameters (integers such as symbolic dims that
// cannot be read from a buffer's shape). It returns nothing: results are written into output
// buffers the caller allocates (`R.call_tir` passes them after the inputs).
//
// Symbolic dimensions: a tir::Var appearing in a buffer's shape is defined by that buffer
// (bound from the argument's shape at the call); the first buffer mentioning it defines it.
//
// Struct info (as TVM does it): FuncStructInfo whose params are
//   - TensorStructInfo(buffer shape as int64, buffer dtype) for a mapped handle parameter,
//   - ObjectStructInfo for an unmapped handle parameter,
//   - PrimStructInfo(dtype) for a scalar parameter,
// whose result is the empty tuple (void), and whose purity is false: a PrimFunc writes its
// output arguments in place; call_tir is what makes the call pure at the graph level.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "relax/ir/expr.h"
#include "relax/tir/stmt.h"
#include "relax/tir/stmt_functor.h"

namespace relax::tir {

/// The attribute keys a PrimFunc commonly carries.
inline constexpr const char* kAttrGlobalSymbol = "global_symbol";  ///< string: the exported name
inline constexpr const char* kAttrNoAlias = "tir.noalias";         ///< bool: buffers do not alias

/// A kernel-IR function. Also a Relax module function (a BaseFuncNode).
struct PrimFunc : relax::BaseFuncNode {
  static constexpr uint32_t kKind = uint32_t(relax::ExprKind::kPrimFunc);
  /// Parameters in call order: handles (buffers) and integer scalars.
  const std::vector<Ref<Var>> params;
  /// Handle parameter -> its Buffer, in parameter order. Every key is a handle parameter.
  const std::vector<std::pair<Ref<Var>, Ref<Buffer>>> buffer_map;
  const Stmt body;
  /// DataType::Void() for a destination-passing kernel (the only kind lowering produces).
  const DataType ret_type;

  /// Checks that params are distinct, every buffer_map key is a handle param and its
  /// buffer's data is that param; computes the struct info (see the header comment).
  PrimFunc(std::vector<Ref<Var>> params, Stmt body,
           std::vector<std::pair<Ref<Var>, Ref<Buffer>>> buffer_map, relax::Attrs attrs = {},
           DataType ret_type = DataType::Void());

  /// The buffer bound to handle parameter `param`, or null.
  Ref<Buffer> buffer_of(const Ref<Var>& param) const;
  /// The buffer of parameter `i` (null for a scalar parameter).
  Ref<Buffer> param_buffer(size_t i) const { return buffer_of(params.at(i)); }
};

/// A PrimFunc whose params are the data vars of `buffers` in order (each buffer mapped from
/// its own data var, as decl_buffer makes them) followed by `scalars`: the convenient way to
/// build one by hand — declare buffers with decl_buffer, write the body over them, call this.
Ref<PrimFunc> make_prim_func(const std::vector<Ref<Buffer>>& buffers, Stmt body,
                             std::vector<Ref<Var>> scalars = {}, relax::Attrs attrs = {});

/// The struct info a PrimFunc with these parameters gets (see the header comment).
relax::StructInfo prim_func_struct_info(
    const std::vector<Ref<Var>>& params,
    const std::vector<std::pair<Ref<Var>, Ref<Buffer>>>& buffer_map, DataType ret_type);

/// `func` with `body` replaced (same params, buffers and attrs); `func` itself when unchanged.
Ref<PrimFunc> with_body(const Ref<PrimFunc>& func, Stmt body);

/// A short rendering for messages: the signature with buffers, then to_string(body).
std::string to_string(const Ref<PrimFunc>& func);

/// Visits the buffers of `func`'s buffer map (visit_buffer) and then its body.
void visit_func(const Ref<PrimFunc>& func, StmtVisitor& visitor);

/// Applies `mutator` to the buffers of the buffer map (visit_buffer) and to the body;
/// returns `func` itself when nothing changed. Parameters are kept; a buffer-map entry's new
/// buffer must keep the parameter as its data var.
Ref<PrimFunc> mutate_func(const Ref<PrimFunc>& func, StmtMutator& mutator);

/// Buffer shapes and body of `func` with variables replaced (see substitute above).
Ref<PrimFunc> substitute(const Ref<PrimFunc>& func, const std::function<PrimExpr(const Var*)>& f);

}  // namespace relax::tir

// The compute DSL (TVM's TE; DESIGN.md §4, RFC §4.4): operators written as index expressions
// over tensors, turned into a PrimFunc by create_prim_func.
//
//   Ref<tir::Var> n = tir::var("n");
//   te::Tensor A = te::placeholder({n, 4}, f32, "A");
//   te::Tensor B = te::placeholder({4}, f32, "B");
//   te::Tensor C = te::compute({n, 4}, [&](const auto& i) { return A(i[0], i[1]) + B(i[1]); },
//   "C"); te::Axis k = te::reduce_axis(4, "k"); te::Tensor S = te::compute({n}, [&](const auto& i)
//   { return te::sum(C(i[0], k), {k}); }, "S"); Ref<tir::PrimFunc> f = te::create_prim_func({A, B,
//   S});
//
// Model:
//  - A Tensor is a placeholder (an input) or one output of a compute stage. Each tensor owns a
//    tir::Buffer from its creation; indexing a tensor, `A(i, j)`, is a BufferLoad of that
//    buffer, so bodies are ordinary PrimExprs.
//  - A compute body is either plain values (one per output) or one Reduction: a commutative
//    reducer (combiner plus identity) applied to source values over reduce axes, with an
//    optional condition. A Reduction is the whole body, never a sub-expression (as in TVM).
//  - Shapes are int64 PrimExprs; symbolic dimensions are tir::Vars.
//
// create_prim_func layout (TVM's): the body is always a root block "root" (no iteration
// variables) whose alloc_buffers hold the intermediate stages, containing, per stage in
// dependence order, a loop nest (spatial loops, then reduce loops) around one Block named after
// the stage, with spatial and reduce iteration variables, read/write regions, and for a
// reduction an init that stores the identity. Symbolic variables that are a whole dimension of
// some parameter buffer are bound from that buffer (match-buffer semantics); every other free
// variable becomes a scalar parameter, after the buffers.
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "relax/ir/prim_func.h"

namespace relax::te {

using tir::PrimExpr;

/// A reduce axis: a variable ranging over [dom.min, dom.min + dom.extent).
struct Axis {
  Ref<tir::Var> var;
  tir::Range dom;
  /// The axis variable as an expression (for use in bodies).
  operator PrimExpr() const { return var; }  // NOLINT(google-explicit-constructor)
};

/// One dimension or index written as an integer, a variable or an expression (`{n, 4}`).
struct Dim {
  PrimExpr value;
  Dim(int v) : value(tir::int_imm(v)) {}               // NOLINT(google-explicit-constructor)
  Dim(int64_t v) : value(tir::int_imm(v)) {}           // NOLINT(google-explicit-constructor)
  Dim(PrimExpr v) : value(std::move(v)) {}             // NOLINT(google-explicit-constructor)
  Dim(const Ref<tir::Var>& v) : value(PrimExpr(v)) {}  // NOLINT(google-explicit-constructor)
  Dim(const Axis& a) : value(PrimExpr(a.var)) {}       // NOLINT(google-explicit-constructor)
};

/// A shape: `{n, 4}` or a vector of PrimExprs. Dimensions are converted to int64.
struct Shape {
  std::vector<PrimExpr> dims;
  Shape() = default;
  Shape(std::initializer_list<Dim> dims);  // NOLINT(google-explicit-constructor)
  Shape(std::vector<PrimExpr> dims);       // NOLINT(google-explicit-constructor)
};

/// A reduce axis over [0, extent).
Axis reduce_axis(Dim extent, std::string name = "k");
/// A reduce axis over [min, min + extent).
Axis reduce_axis(Dim min, Dim extent, std::string name);

/// A commutative reducer over k values: combine(lhs, rhs) with lhs the accumulators and rhs the
/// new values, and an identity per value (TVM's CommReducer).
struct Reducer {
  std::vector<Ref<tir::Var>> lhs;
  std::vector<Ref<tir::Var>> rhs;
  /// The combined values, expressions of lhs and rhs.
  std::vector<PrimExpr> result;
  std::vector<PrimExpr> identity;
};

/// A reducer from a combiner function, given the identities (their dtypes type lhs and rhs).
Reducer make_reducer(
    const std::function<std::vector<PrimExpr>(const std::vector<PrimExpr>& lhs,
                                              const std::vector<PrimExpr>& rhs)>& combine,
    std::vector<PrimExpr> identity);

/// A reduction: the whole body of a compute stage with one output per reducer value.
struct Reduction {
  Reducer reducer;
  /// One source value per reducer value, typed like its identity.
  std::vector<PrimExpr> sources;
  std::vector<Axis> axes;
  /// Only elements where this (bool) holds take part; null means all.
  PrimExpr condition;
};

/// sum / max / min / prod of `source` over `axes` (where `where` holds, when given). The
/// identity of max is the lowest finite value of the dtype (as in TVM), of min the highest.
Reduction sum(PrimExpr source, std::vector<Axis> axes, PrimExpr where = {});
Reduction max(PrimExpr source, std::vector<Axis> axes, PrimExpr where = {});
Reduction min(PrimExpr source, std::vector<Axis> axes, PrimExpr where = {});
Reduction prod(PrimExpr source, std::vector<Axis> axes, PrimExpr where = {});
/// (index, value) of the first maximum of `value` over `axis`: two outputs, the index int64.
/// Use with compute_multi. Ties keep the smaller index.
Reduction argmax(PrimExpr value, const Axis& axis, PrimExpr where = {});
Reduction argmin(PrimExpr value, const Axis& axis, PrimExpr where = {});
/// A reduction with a reducer of one's own.
Reduction reduce(Reducer reducer, std::vector<PrimExpr> sources, std::vector<Axis> axes,
                 PrimExpr where = {});

/// The lowest / highest finite value of a scalar dtype, as a constant of that dtype.
PrimExpr min_value(DataType dtype);
PrimExpr max_value(DataType dtype);

/// `cond ? t : f`, evaluating only the arm taken (the if_then_else intrinsic): for guarded
/// loads such as padding.
PrimExpr if_then_else(PrimExpr cond, PrimExpr t, PrimExpr f);

/// What a compute function returns: plain values (one per output) or one Reduction.
struct Body {
  std::vector<PrimExpr> values;
  std::shared_ptr<const Reduction> reduction;
  template <class T>
  requires std::is_convertible_v<T, PrimExpr> Body(T value)
      : values{PrimExpr(std::move(value))} {}  // NOLINT(google-explicit-constructor)
  Body(std::vector<PrimExpr> values) : values(std::move(values)) {}                  // NOLINT
  Body(Reduction r) : reduction(std::make_shared<const Reduction>(std::move(r))) {}  // NOLINT
};

/// The signature of a compute function: output indices to the body.
using FCompute = std::function<Body(const std::vector<PrimExpr>& indices)>;

struct Operation;

/// A tensor of the DSL: a placeholder or one output of a compute stage.
class Tensor {
 public:
  Tensor() = default;
  Tensor(std::shared_ptr<const Operation> op, int index) : op_(std::move(op)), index_(index) {}

  bool defined() const { return op_ != nullptr; }
  /// The buffer the tensor lives in (a PrimFunc parameter or an intermediate allocation).
  const Ref<tir::Buffer>& buffer() const;
  const std::vector<PrimExpr>& shape() const;
  DataType dtype() const;
  size_t ndim() const { return shape().size(); }
  const std::string& name() const;
  /// The stage that produces the tensor.
  const std::shared_ptr<const Operation>& op() const { return op_; }
  /// Which output of the stage it is.
  int index() const { return index_; }
  bool same_as(const Tensor& other) const { return op_ == other.op_ && index_ == other.index_; }

  /// Element access, `A(i, j)`: a BufferLoad of the tensor's buffer.
  PrimExpr operator()(const std::vector<PrimExpr>& indices) const;
  template <class... Ix>
  requires(std::is_convertible_v<Ix, Dim>&&...) PrimExpr operator()(Ix&&... ix) const {
    return (*this)(std::vector<PrimExpr>{Dim(std::forward<Ix>(ix)).value...});
  }

 private:
  std::shared_ptr<const Operation> op_;
  int index_ = 0;
};

/// A stage: a placeholder (no body) or a computation with one buffer per output.
struct Operation {
  std::string name;
  std::vector<PrimExpr> shape;
  /// One buffer per output.
  std::vector<Ref<tir::Buffer>> outputs;
  /// The index variables of a compute stage (one per dimension); empty for a placeholder.
  std::vector<Ref<tir::Var>> axes;
  /// The body, in terms of `axes`; empty values and null reduction for a placeholder.
  Body body{std::vector<PrimExpr>{}};
  /// The tensors the body reads, in first-use order.
  std::vector<Tensor> inputs;

  bool is_placeholder() const { return body.values.empty() && !body.reduction; }
};

/// An input tensor.
Tensor placeholder(Shape shape, DataType dtype, std::string name = "placeholder");

/// A stage with one output: out[indices] = fcompute(indices). Its dtype is the body's.
Tensor compute(Shape shape, const FCompute& fcompute, std::string name = "compute");
/// A stage with several outputs (several values, or a reducer of several values); output j is
/// named `name` for j = 0 and `name_vj` after.
std::vector<Tensor> compute_multi(Shape shape, const FCompute& fcompute,
                                  std::string name = "compute");

/// The PrimFunc computing the stages that `args` depend on. `args` lists the parameters in
/// order: every placeholder the outputs read, and the outputs; any other stage becomes an
/// intermediate buffer. `scalar_params` come first among the scalar parameters; free variables
/// not bound by a buffer dimension are appended after them. Errors (relax::Error) name a
/// placeholder missing from `args` and a stage that reads a buffer no tensor owns.
/// Attributes: tir.noalias = true, plus global_symbol = `global_symbol` when it is not empty.
Ref<tir::PrimFunc> create_prim_func(const std::vector<Tensor>& args,
                                    std::vector<Ref<tir::Var>> scalar_params = {},
                                    const std::string& global_symbol = "");

}  // namespace relax::te

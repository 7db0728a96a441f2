// The Relay-to-Relax converter's shared part: what an operator converter (ops_*.cc) sees.
//
// convert.cc walks the syntax tree: each Relay call of an operator has its arguments converted
// first (to normalised Relax leaves; a tuple argument as a Relax Tuple of leaves), then the
// operator's converter builds the Relax expression, which convert.cc binds with the
// BlockBuilder. A converter reads attributes with the typed accessors of OpCall, which check
// kinds and name the attribute, the op and the place in errors.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "relax/ir/block_builder.h"
#include "relax/ir/expr.h"
#include "relay_ast.h"

namespace relax::relay_frontend {

/// One call of a Relay operator being converted.
class OpCall {
 public:
  OpCall(const Source& src, const Node& node, BlockBuilder& bb, std::vector<Expr> args)
      : src_(src), node_(node), bb_(bb), args_(std::move(args)) {}

  const std::string& op() const { return node_.a->name; }
  BlockBuilder& bb() { return bb_; }
  size_t num_args() const { return args_.size(); }
  /// Argument `i`; an error when the call has fewer.
  const Expr& arg(size_t i) const;
  /// Argument `i` as a tensor's struct info; an error unless it is a tensor of known rank.
  const TensorStructInfo& tensor(size_t i) const;
  int ndim(size_t i) const { return tensor(i).ndim; }
  DataType dtype(size_t i) const { return tensor(i).dtype; }
  /// The shape of argument `i`; an error naming `why` when unknown.
  std::vector<PrimExpr> shape(size_t i, const std::string& why) const;
  /// The shape of argument `i` as numbers; an error naming `why` unless every dim is static.
  std::vector<int64_t> static_shape(size_t i, const std::string& why) const;
  /// The fields of a tuple argument (a Tuple, or a tuple-typed value projected field by field).
  std::vector<Expr> tuple_fields(size_t i);
  /// The value of a scalar constant argument (a literal or a one-element constant), or nullopt.
  std::optional<double> const_scalar(size_t i) const;
  /// const_scalar, or an error naming `what`.
  double scalar(size_t i, const std::string& what) const;

  // ---- Attributes (Relay's names; `dflt` when absent or None).
  bool has(const std::string& name) const;
  /// Whether the attribute is written as a list.
  bool attr_is_list(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t dflt) const;
  double attr_float(const std::string& name, double dflt) const;
  bool attr_bool(const std::string& name, bool dflt) const;
  std::string attr_str(const std::string& name, const std::string& dflt) const;
  /// An int list (a single int gives one element); nullopt when absent or None.
  std::optional<std::vector<int64_t>> attr_ints(const std::string& name) const;
  std::optional<std::vector<double>> attr_floats(const std::string& name) const;
  /// A dtype attribute; "" (TVM's "same as input") and absence give `dflt`.
  DataType attr_dtype(const std::string& name, DataType dflt) const;

  /// Normalises a (possibly negative) axis against `ndim`; an error when out of range.
  int64_t axis(int64_t a, int64_t ndim, const std::string& what = "axis") const;
  /// Throws a relax::Error at the call: "<op>: msg".
  [[noreturn]] void fail(const std::string& msg) const;
  Loc loc() const { return node_.loc; }

 private:
  const AttrValue* find(const std::string& name) const;
  [[noreturn]] void bad_attr(const AttrValue& v, const std::string& name, const char* expected) const;

  const Source& src_;
  const Node& node_;
  BlockBuilder& bb_;
  std::vector<Expr> args_;
};

/// Converts one call; returns the Relax value (convert.cc binds it unless it is a leaf).
using OpConverter = std::function<Expr(OpCall& call)>;
using OpTable = std::map<std::string, OpConverter>;

/// Relay op name -> converter.
const OpTable& op_table();
void register_math_ops(OpTable& t);
void register_nn_ops(OpTable& t);
void register_tensor_ops(OpTable& t);
void register_more_ops(OpTable& t);
void register_extra_ops(OpTable& t);
void register_qnn_ops(OpTable& t);

/// A scalar (rank 0) constant of `dtype`.
Expr scalar_const(double value, DataType dtype);

/// Converts a parsed program to a Relax module (function "main" and the other defs).
IRModule convert_program(const Source& src, const Program& prog);

}  // namespace relax::relay_frontend

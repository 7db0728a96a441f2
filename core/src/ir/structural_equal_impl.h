// Internal to structural_equal*.cc and structural_hash.cc.
//
// One walker describes, node by node, which fields make up the structure of the IR and in
// what order they are visited; two reducers give that walk its meaning:
//  - EqualReducer (structural_equal.cc) compares two trees, maps variables one to one and
//    records the path of the first difference;
//  - HashReducer (structural_hash.cc) walks one tree (as a pair of identical trees) and mixes
//    every leaf into a hash, numbering variables in order of definition.
// Sharing the walk is what keeps the hash consistent with equality.
//
// The walker is split by IR: Relax expressions, struct info, bindings, attributes and
// PrimExprs in structural_equal.cc; TIR statements, buffers and PrimFuncs in
// structural_equal_tir.cc.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "relax/ir/expr.h"
#include "relax/ir/module.h"
#include "relax/ir/prim_func.h"
#include "relax/tir/stmt.h"

namespace relax::sequal {

/// What a walk does at its leaves and variables.
class Reducer {
 public:
  explicit Reducer(bool map_free_vars) : map_free_vars_(map_free_vars) {}
  virtual ~Reducer() = default;

  // ---- Access path (recorded by the equality reducer only).
  virtual void push(std::string_view field, int64_t index) {}
  virtual void pop() {}

  // ---- Leaves: true when equal; the hash reducer mixes the left value in.
  virtual bool leaf(int64_t a, int64_t b) = 0;
  /// Bitwise equal, or both NaN.
  virtual bool leaf(double a, double b) = 0;
  virtual bool leaf(std::string_view a, std::string_view b) = 0;
  virtual bool leaf(DataType a, DataType b) = 0;
  /// A value that names a node (a global's name, a string literal): on a mismatch the
  /// nodes are reported rather than the bare values.
  virtual bool named(std::string_view a, std::string_view b, const Object* na,
                     const Object* nb) = 0;
  /// Raw contents (of a constant); `elem_size` only serves the report.
  virtual bool bytes(const void* a, size_t na, const void* b, size_t nb, size_t elem_size) = 0;
  /// Mixes a structural tag (a kind, a length) into the hash; nothing for equality.
  virtual void mix(uint64_t value) {}

  // ---- Differences found by the walker itself (kinds, nulls, lengths); never when hashing.
  virtual bool fail(const Object* a, const Object* b, std::string reason) = 0;
  virtual bool fail_text(std::string lhs, std::string rhs, std::string reason) = 0;

  // ---- Variables (Relax vars, tir::Vars, buffers), in one mapping.
  enum class VarState { kBound, kConflict, kUnbound };
  /// kBound when a is mapped to b; kConflict (reported) when either is mapped elsewhere.
  virtual VarState lookup(const Object* a, const Object* b) = 0;
  /// Maps a to b (hash: numbers a). Always true.
  virtual bool bind(const Object* a, const Object* b) = 0;
  /// A free variable that may not be mapped: equal only to itself (hash: by identity).
  virtual bool free_var(const Object* a, const Object* b) = 0;

  /// Whether an unbound variable met now may be mapped.
  bool may_bind() const { return map_free_vars_ || define_depth_ > 0; }
  bool map_free_vars() const { return map_free_vars_; }
  void enter_define() { ++define_depth_; }
  void exit_define() { --define_depth_; }

 private:
  bool map_free_vars_;
  int define_depth_ = 0;
};

/// RAII: one step of the access path.
class PathStep {
 public:
  PathStep(Reducer& r, std::string_view field, int64_t index = -1) : r_(r) {
    r_.push(field, index);
  }
  ~PathStep() { r_.pop(); }
  PathStep(const PathStep&) = delete;
  PathStep& operator=(const PathStep&) = delete;

 private:
  Reducer& r_;
};

/// RAII: a region where unbound symbolic variables are definitions (a parameter's struct
/// info, a match_cast's struct info, a buffer's shape).
class DefineScope {
 public:
  explicit DefineScope(Reducer& r) : r_(r) { r_.enter_define(); }
  ~DefineScope() { r_.exit_define(); }
  DefineScope(const DefineScope&) = delete;
  DefineScope& operator=(const DefineScope&) = delete;

 private:
  Reducer& r_;
};

/// A module's vdevice list with every field (compared and hashed with the module).
std::string vdevices_text(const IRModule& mod);

// ---- Short renderings of nodes for reports (structural_equal.cc; TIR ones in _tir.cc).
std::string render(const Object* obj);
std::string render_tir(const Object* obj);
inline std::string render_item(const Ref<Object>& x) { return render(x.get_object()); }
template <class T>
std::string render_item(const Ref<T>& x) {
  return render(x.get_object());
}
std::string render_item(const tir::Range& r);
std::string render_item(const tir::BufferRegion& r);
std::string render_item(const tir::MatchBufferRegion& r);
std::string render_item(const std::pair<Ref<tir::Var>, Ref<tir::Buffer>>& entry);
std::string render_item(int64_t v);
std::string render_item(double v);
std::string render_item(const std::string& v);

/// Null handling and the kind check that open every node-level comparison. Returns 1 when the
/// pair is settled as equal (both null), 0 when different (reported), -1 when the fields must
/// be compared.
int check_head(Reducer& r, const Object* a, const Object* b);

/// The walk: which fields of each node are compared, in which order.
class Walker {
 public:
  explicit Walker(Reducer& r) : r_(r) {}

  /// Any node: dispatches on the kind range.
  bool object(const Object* a, const Object* b);

  // Relax (structural_equal.cc).
  bool expr(const Expr& a, const Expr& b);
  bool sinfo(const StructInfo& a, const StructInfo& b);
  bool binding(const Binding& a, const Binding& b);
  bool block(const Block& a, const Block& b);
  bool attrs(const Attrs& a, const Attrs& b);
  bool attr_value(const AttrValue& a, const AttrValue& b);
  bool prim(const PrimExpr& a, const PrimExpr& b);
  bool relax_var_def(const Ref<VarNode>& a, const Ref<VarNode>& b);
  bool tir_var_def(const Ref<tir::Var>& a, const Ref<tir::Var>& b);

  // TIR (structural_equal_tir.cc).
  bool tir_object(const Object* a, const Object* b);
  bool stmt(const tir::Stmt& a, const tir::Stmt& b);
  bool prim_func(const tir::PrimFunc* a, const tir::PrimFunc* b);
  bool buffer_def(const Ref<tir::Buffer>& a, const Ref<tir::Buffer>& b);
  bool buffer_use(const Ref<tir::Buffer>& a, const Ref<tir::Buffer>& b);

  /// Element-wise over two lists: the common prefix first, then the lengths (so an
  /// inserted element is reported where it appears).
  template <class T, class F>
  bool list(std::string_view field, const std::vector<T>& a, const std::vector<T>& b, F&& each) {
    size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
      PathStep step(r_, field, int64_t(i));
      if (!each(a[i], b[i])) return false;
    }
    if (a.size() != b.size()) {
      PathStep step(r_, field, int64_t(n));
      return r_.fail_text(n < a.size() ? render_item(a[n]) : "(nothing)",
                          n < b.size() ? render_item(b[n]) : "(nothing)",
                          "lists of different lengths: " + std::to_string(a.size()) + " vs " +
                              std::to_string(b.size()));
    }
    r_.mix(a.size());
    return true;
  }

  /// Calls `fn` with a path step `field`.
  template <class F>
  bool field(std::string_view name, F&& fn) {
    PathStep step(r_, name);
    return fn();
  }

  Reducer& reducer() { return r_; }

 private:
  bool relax_var_use(const VarNode* a, const VarNode* b);
  bool tir_var_use(const tir::Var* a, const tir::Var* b);
  bool range(const tir::Range& a, const tir::Range& b);
  bool buffer_region(const tir::BufferRegion& a, const tir::BufferRegion& b);
  bool buffer_fields(const tir::Buffer* a, const tir::Buffer* b);
  bool iter_var_def(const Ref<tir::IterVar>& a, const Ref<tir::IterVar>& b);
  bool block_node(const tir::Block* a, const tir::Block* b);
  /// Maps a definition: consistent with an existing mapping, or a new one.
  bool define(const Object* a, const Object* b);

  Reducer& r_;
};

}  // namespace relax::sequal

// BlockBuilder: builds Relax functions binding by binding (RFC §4.4, TVM's BlockBuilder).
//
// Every pass and frontend that creates Relax IR goes through it. It
//  - keeps the module being built (functions added and updated under unique names),
//  - keeps a stack of scopes (a function body, an If branch), each a list of finished blocks
//    and the block being filled (a dataflow block or a plain binding block),
//  - normalises what is emitted: nested expressions are flattened into A-normal form (each
//    non-leaf argument bound to its own variable) and struct info is inferred, through the op
//    registry for op calls and through the callee's struct info for function calls.
// Errors in what is built (an ill-typed call, emit_output outside a dataflow block) are
// relax::Errors naming the op or variable at fault; when the node being normalised has a span
// (it was parsed from text), the error is placed there. Nodes rebuilt by normalisation keep the
// span of the node they replace, and a binding emitted for a value takes the value's span.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "relax/ir/module.h"
#include "relax/support/diagnostic.h"

namespace relax {

namespace arith {
class Analyzer;
}

/// Hands out unique names: "lv", "lv1", "lv2", ...
class NameSupply {
 public:
  /// A name not handed out before, starting from `hint`.
  std::string fresh(const std::string& hint);
  /// Marks `name` as taken.
  void reserve(const std::string& name) { taken_.emplace(name, 0); }
  void clear() { taken_.clear(); }

 private:
  std::unordered_map<std::string, int> taken_;
};

class BlockBuilder {
 public:
  explicit BlockBuilder(IRModule mod = IRModule());
  ~BlockBuilder();
  BlockBuilder(const BlockBuilder&) = delete;
  BlockBuilder& operator=(const BlockBuilder&) = delete;

  // ---- The module.

  const IRModule& module() const { return module_; }
  /// Adds `func` under a fresh name derived from `name_hint`; returns its GlobalVar.
  Ref<GlobalVar> add_function(BaseFunc func, const std::string& name_hint);
  /// Replaces the function of `gv`.
  void update_function(const Ref<GlobalVar>& gv, BaseFunc func);
  /// The module built so far (a copy).
  IRModule get_module() const { return module_; }

  // ---- Whole functions.

  /// Declares a function before its body exists (for recursion and mutual calls): calls to
  /// the returned GlobalVar are typed by `sinfo` (a FuncStructInfo); end_function with the
  /// same name uses this GlobalVar.
  Ref<GlobalVar> declare_function(const std::string& name, StructInfo sinfo);
  /// Opens a function scope with `params` (their symbolic variables become defined); `span` is
  /// where the function is written, given to the Function that end_function makes.
  void begin_function(const std::string& name, std::vector<Ref<Var>> params, bool pure = true, Attrs attrs = {},
                      Span span = {});
  /// Closes the function: the blocks emitted since begin_function, then `output`, become its
  /// body; `ret` (when given) must describe the output. Adds it to the module.
  Ref<GlobalVar> end_function(const Expr& output, StructInfo ret = {});

  // ---- Scopes and blocks, for callers that assemble functions themselves.

  /// Opens a scope (a function body or a branch); `params` define symbolic variables.
  void begin_scope(const std::vector<Ref<Var>>& params = {});
  /// Closes the scope: finishes its open block and returns its blocks.
  std::vector<Block> end_scope();
  void begin_dataflow_block();
  void begin_binding_block();
  /// Finishes the open block, appends it (unless empty) to the scope's blocks and returns it.
  Block end_block();
  /// Finishes the open block and returns it without appending it to the scope: for callers
  /// that assemble SeqExprs themselves (mutators).
  Block pop_block();
  bool in_dataflow_block() const;

  // ---- Emitting bindings (into the open block; a binding block is opened when none is).

  /// Binds the normalised `value` to a new variable (a DataflowVar inside a dataflow block).
  Ref<VarNode> emit(const Expr& value, const std::string& name_hint = "");
  /// Binds `value` cast to `sinfo`; defines the symbolic variables `sinfo` introduces.
  Ref<VarNode> emit_match_cast(const Expr& value, const StructInfo& sinfo, const std::string& name_hint = "");
  /// Inside a dataflow block: binds `value` to a Var visible after the block.
  Ref<Var> emit_output(const Expr& value, const std::string& name_hint = "");
  /// Appends an already normalised binding as it is.
  void emit_binding(const Binding& binding);

  // ---- Normalisation.

  /// A-normal form plus struct info for `e`. Non-leaf sub-expressions are emitted as bindings
  /// into the open block.
  Expr normalize(const Expr& e);
  /// Normalises `e` and, unless it is a leaf, binds it to a variable; returns the leaf.
  Expr normalize_argument(const Expr& e);
  /// Normalises `e` in a scope of its own and returns it as a SeqExpr (for If branches and
  /// function bodies).
  Expr normalize_seq(const Expr& e);

  // ---- Context for inference.

  arith::Analyzer& analyzer() { return *analyzer_; }
  /// The value bound to `var` in the scopes being built, or null.
  Expr lookup_binding(const Ref<VarNode>& var) const;
  NameSupply& name_supply() { return names_; }

 private:
  struct BlockFrame {
    bool dataflow = false;
    std::vector<Binding> bindings;
  };
  struct ScopeFrame {
    std::vector<Block> blocks;
    std::unique_ptr<BlockFrame> open;
    /// Symbolic variables defined in this scope (by parameters and match_casts).
    std::vector<const tir::Var*> symbolic_vars;
  };
  struct FunctionFrame {
    std::string name;
    std::vector<Ref<Var>> params;
    bool pure;
    Attrs attrs;
    Span span;
  };

  BlockFrame& current_block();
  Ref<VarNode> new_var(const std::string& hint, StructInfo sinfo, bool output, Span span);
  /// normalize() without placing its errors at `e`'s span.
  Expr normalize_node(const Expr& e);
  Expr normalize_seq_expr(const SeqExpr* seq);
  StructInfo infer_call(const Call& call);
  Expr normalize_call(const Call* call);

  IRModule module_;
  std::unique_ptr<arith::Analyzer> analyzer_;
  NameSupply names_;
  NameSupply global_names_;
  std::vector<ScopeFrame> scopes_;
  std::vector<FunctionFrame> functions_;
  std::unordered_map<const VarNode*, Expr> bindings_;
  std::unordered_map<std::string, Ref<GlobalVar>> declared_;
  /// Keeps symbolic variables alive while scopes refer to them by pointer.
  std::vector<Ref<tir::Var>> symbolic_var_refs_;

  void define_symbolic_vars(const StructInfo& sinfo);
  std::unordered_set<const tir::Var*> symbolic_vars_in_scope(size_t depth) const;
  StructInfo global_var_sinfo(const GlobalVar& gv) const;
};

}  // namespace relax

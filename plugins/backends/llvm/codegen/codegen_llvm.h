// CodeGenLLVM: one lowered PrimFunc -> one LLVM function with the packed-function ABI.
//
// Split by concern: codegen_func.cc (the ABI prologue: argument checks, shape binding),
// codegen_expr.cc (scalar and vector expressions with the integer semantics of tir/expr.h),
// codegen_intrin.cc (math intrinsics, libm calls), codegen_stmt.cc (loops, stores, allocations),
// codegen_parallel.cc (parallel loops: outlined bodies launched through the runtime),
// codegen_vector.cc (vectorized loops widened to LLVM vectors).
//
// Value representation: integers as iN (bool as i1 in registers, i8 in memory), float32/64 as
// float/double, float16 as half, bfloat16 as i16 bits; vectors as LLVM fixed vectors. Narrow
// floats compute in float and round after every operation (the interpreter's rule).
//
// Memory: loads and stores of tensor parameters carry scoped noalias metadata (one scope per
// parameter, `param_alias_`); floating-point multiply and add carry the `contract` flag, so
// `a * b + c` becomes a fused multiply-add where the target has one (as C compilers do with
// -ffp-contract=fast).
//
// Masks: inside an IfThenElse of a widened loop (or an if_then_else) whose condition is a
// vector, `mask_` holds the
// lanes that are active; vector loads and stores there become masked loads and stores (so a
// widened loop's tail reads and writes nothing past its guard).
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "relax/tir/expr_functor.h"
#include "relax/ir/prim_func.h"
#include "relax/tir/stmt_functor.h"

namespace relax::llvm_backend {

class CodeGenLLVM : public tir::StmtFunctor<void(const tir::Stmt&)> {
 public:
  CodeGenLLVM(llvm::LLVMContext& ctx, llvm::Module& module);

  /// Emits `func` (lowered) as the exported function kKernelSymbolPrefix + name.
  void add_function(const std::string& name, const Ref<tir::PrimFunc>& func);

  using tir::StmtFunctor<void(const tir::Stmt&)>::visit_;
  /// Dispatches on the expression's kind (the node list's X-macro, as tir::ExprFunctor does).
  llvm::Value* emit(const tir::PrimExpr& e);
  void emit(const tir::Stmt& s) { visit_stmt(s); }

  // ---- Expressions (codegen_expr.cc).
#define RELAX_X(Name) llvm::Value* visit_(const tir::Name* op);
  RELAX_PRIM_EXPR_NODES(RELAX_X)
#undef RELAX_X

  // ---- Statements (codegen_stmt.cc).
#define RELAX_X(Name) void visit_(const tir::Name* op) override;
  RELAX_TIR_STMT_NODES(RELAX_X)
#undef RELAX_X

 private:
  friend struct IntrinEmitter;
  // Types.
  llvm::Type* scalar_type(DataType t);  ///< the register type of one element
  llvm::Type* value_type(DataType t);   ///< with lanes
  llvm::Type* memory_type(DataType t);  ///< one element in memory (bool: i8)
  llvm::Type* compute_float_type(DataType t);
  bool is_narrow_float(DataType t) const { return t.is_float() && t.bits == 16; }

  // Narrow floats: register value <-> compute value (float).
  llvm::Value* to_compute(llvm::Value* v, DataType t);
  llvm::Value* from_compute(llvm::Value* v, DataType t);
  /// Converts between any two dtypes with the interpreter's cast rules.
  llvm::Value* cast_value(llvm::Value* v, DataType from, DataType to);
  llvm::Value* splat_if_needed(llvm::Value* v, int lanes);
  llvm::Value* const_int(DataType t, int64_t v);

  // Integer division family.
  llvm::Value* emit_div_mod(DataType t, llvm::Value* a, llvm::Value* b, bool mod, bool floor);
  llvm::Value* emit_float_div_mod(DataType t, llvm::Value* a, llvm::Value* b, bool mod, bool floor);
  llvm::Value* emit_compare(const tir::BinaryOp* op, llvm::CmpInst::Predicate fp,
                            llvm::CmpInst::Predicate sp, llvm::CmpInst::Predicate up);

  // Loops (codegen_stmt.cc, codegen_parallel.cc).
  /// The loop `for v in [begin, end)` over op->body, with op's kind as an LLVM loop hint.
  void emit_serial_loop(const tir::For* op, llvm::Value* begin, llvm::Value* end);
  /// op (a parallel loop) as an outlined body launched through __rx_parallel_for.
  void emit_parallel_loop(const tir::For* op);

  // Memory.
  llvm::Value* buffer_ptr(const tir::Buffer& buffer);
  /// Addresses of the lanes of a vector index (a vector of pointers).
  llvm::Value* element_addresses(const tir::Buffer& buffer, llvm::Value* index);
  /// `mask` and the current mask_ (either may be null).
  llvm::Value* and_mask(llvm::Value* mask);
  llvm::Value* element_address(const tir::Buffer& buffer, llvm::Value* index);
  llvm::Value* load_element(const tir::Buffer& buffer, llvm::Value* index, DataType t);
  void store_element(const tir::Buffer& buffer, llvm::Value* index, llvm::Value* value,
                     DataType t);
  /// Tags a load or store of a parameter buffer with that buffer's alias scope (see
  /// `param_alias_`); returns `access`. Other buffers (allocations) are left untagged.
  llvm::Value* tag_access(llvm::Value* access, const tir::Buffer& buffer);

  // Intrinsics (codegen_intrin.cc).
  llvm::Value* emit_intrinsic(const tir::Call* op);
  llvm::Value* call_llvm_intrinsic(llvm::Intrinsic::ID id, DataType t,
                                   const std::vector<llvm::Value*>& args);
  llvm::Value* call_libm(const char* name, DataType t, const std::vector<llvm::Value*>& args);

  // Control flow and errors (codegen_func.cc / codegen_stmt.cc).
  llvm::BasicBlock* new_block(const char* name);
  /// Stores `message` through __rx_set_last_error, frees live heap allocations, returns status.
  void emit_error_return(const std::string& message, int status);
  /// Frees live heap allocations and returns `status` (an i32 whose message is already set).
  void emit_status_return(llvm::Value* status);
  /// if (!cond) error-return.
  void emit_check(llvm::Value* cond, const std::string& message, int status);
  llvm::Value* int64_to(llvm::Value* v, DataType t);
  void bind_var(const tir::Var* var, llvm::Value* value);
  void unbind_var(const tir::Var* var) { vars_.erase(var); }

  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  llvm::IRBuilder<> b_;
  llvm::Function* func_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;  ///< allocas go here
  std::string kernel_name_;
  std::unordered_map<const tir::Var*, llvm::Value*> vars_;
  /// Heap allocations live at the current point (freed on an early error return).
  std::vector<llvm::Value*> heap_allocs_;
  llvm::GlobalVariable* set_last_error_ = nullptr;
  llvm::GlobalVariable* parallel_for_ = nullptr;
  /// > 0 while emitting the body of a launched parallel loop (nested ones run serially).
  int parallel_depth_ = 0;
  /// Outlined parallel bodies of the current kernel (for their names).
  int parallel_count_ = 0;
  /// The active lanes (a vector of i1) under a vector condition; null when all are.
  llvm::Value* mask_ = nullptr;
  /// The vector conditions of the widened loop being emitted (WidenedLoop::masks), or null.
  const std::unordered_map<const tir::IfThenElse*, tir::PrimExpr>* vector_conditions_ = nullptr;
  /// Per tensor parameter (its data variable): its alias scope list and the list of every other
  /// parameter's scope. Distinct tensor arguments of a kernel never overlap (the VM allocates
  /// every call_tir output apart from the inputs), so a store to one parameter cannot change a
  /// load of another: this lets LLVM keep accumulators in registers across a reduction loop.
  std::unordered_map<const tir::Var*, std::pair<llvm::MDNode*, llvm::MDNode*>> param_alias_;
  llvm::Type* i8_ = nullptr;
  llvm::Type* i16_ = nullptr;
  llvm::Type* i32_ = nullptr;
  llvm::Type* i64_ = nullptr;
  llvm::PointerType* ptr_ = nullptr;
};

/// Allocations of at most this many bytes with a constant size go on the stack.
inline constexpr int64_t kMaxStackAllocaBytes = 64 * 1024;

/// Unrolled loops of a constant extent up to this are unrolled by the codegen itself (longer
/// ones become LLVM loops with a full-unroll hint).
inline constexpr int64_t kMaxUnrollExtent = 32;

/// Vectorized loops of a constant extent in [2, kMaxVectorLanes] are widened to LLVM vectors.
inline constexpr int64_t kMaxVectorLanes = 64;

/// A vectorized loop's body widened to vectors (codegen_vector.cc).
struct WidenedLoop {
  /// The body with the loop variable replaced by the vector Ramp(min, 1, N) and every
  /// expression that depends on it widened to N lanes; null when it is not simple enough.
  tir::Stmt body;
  /// The IfThenElse nodes of `body` whose condition is a vector (TIR conditions are scalar:
  /// these nodes carry `true` and the codegen reads the mask from here).
  std::unordered_map<const tir::IfThenElse*, tir::PrimExpr> masks;
};
WidenedLoop vectorize_loop_body(const tir::For& loop);

/// The largest register tile promote_accumulator moves into a local buffer (bytes).
inline constexpr int64_t kMaxAccumulatorBytes = 1024;

/// `loop` (serial) rewritten to keep the register tile it updates in a local buffer for the
/// whole loop (codegen_promote.cc), or null when `loop` is not the reduction nest of such a
/// tile: serial loops around `for r in unroll(MR): for c in vectorized(NR): C[i] = C[i] + x`
/// with `i` independent of the serial loops and `x` not reading C.
tir::Stmt promote_accumulator(const tir::For& loop);

}  // namespace relax::llvm_backend

// Statements of the kernel IR (DESIGN.md §4): loop nests over buffers.
//
// Semantics:
//  - Statements execute in order; SeqStmt runs its children in sequence. Side effects are
//    buffer stores (BufferStore) and impure intrinsic calls under Evaluate.
//  - For runs `body` for loop_var = min, min + 1, ..., min + extent - 1. The kind is a promise
//    the lowering and the backends may use: kParallel iterations are independent,
//    kVectorized and kUnrolled are hints, kThreadBinding maps the iterations to the GPU
//    thread index named by thread_tag ("blockIdx.x", "threadIdx.y", ...), which only GPU
//    backends lower; on the CPU such a loop reads as a serial loop.
//  - Allocate reserves `prod(extents)` elements of `dtype` in `scope` for the duration of
//    its body and binds them to `buffer_var` (a handle Var); the contents start undefined.
//  - A Block is the unit the analyses and schedules read (TVM's TensorIR block): iteration
//    variables with a domain and a type (spatial, reduce, opaque), the regions it reads and
//    writes, an optional init statement (run when every reduce iteration variable is at the
//    start of its domain — how a reduction initialises its output), buffers it allocates, and
//    a body. Its iteration variables are bound by the enclosing BlockRealize to `iter_values`
//    (expressions of the surrounding loop variables), and the block runs only where
//    `predicate` holds. Blocks are lowered to plain loops before codegen.
//  - A variable (loop var, let var, iteration var, buffer data var) is defined once and
//    compared by identity.
#pragma once

#include <string>
#include <vector>

#include "relax/tir/attrs.h"
#include "relax/tir/buffer.h"
#include "relax/tir/expr.h"

namespace relax::tir {

/// The one node list of TIR statements: kinds, functor dispatch and visitor/mutator defaults
/// are generated from it.
#define RELAX_TIR_STMT_NODES(X) \
  X(LetStmt)                    \
  X(AssertStmt)                 \
  X(For)                        \
  X(BufferStore)                \
  X(IfThenElse)                 \
  X(SeqStmt)                    \
  X(Allocate)                   \
  X(Evaluate)                   \
  X(Block)                      \
  X(BlockRealize)

enum class StmtKind : uint32_t {
  kFirst = kTirStmtKindBase - 1,
#define RELAX_X(Name) k##Name,
  RELAX_TIR_STMT_NODES(RELAX_X)
#undef RELAX_X
  kLast
};

/// Name of a statement kind, e.g. "For".
const char* stmt_kind_name(uint32_t kind);

/// Base of every statement.
struct StmtNode : Object {
  static constexpr uint32_t kKindFirst = uint32_t(StmtKind::kFirst) + 1;
  static constexpr uint32_t kKindLast = uint32_t(StmtKind::kLast) - 1;

 protected:
  explicit StmtNode(StmtKind kind) : Object(uint32_t(kind)) {}
};
using Stmt = Ref<StmtNode>;

#define RELAX_TIR_STMT_KIND(Name) static constexpr uint32_t kKind = uint32_t(StmtKind::k##Name)

// Constructors check structural invariants (non-null children, matching dtypes) and throw
// InternalError: building ill-formed IR is a bug in the code that builds it.

/// `var = value` for the duration of `body`.
struct LetStmt : StmtNode {
  RELAX_TIR_STMT_KIND(LetStmt);
  const Ref<Var> var;
  const PrimExpr value;
  const Stmt body;
  LetStmt(Ref<Var> var, PrimExpr value, Stmt body);
};

/// Checks `condition` at run time; fails the kernel with `message` when false, else runs body.
struct AssertStmt : StmtNode {
  RELAX_TIR_STMT_KIND(AssertStmt);
  const PrimExpr condition;
  const std::string message;
  const Stmt body;
  AssertStmt(PrimExpr condition, std::string message, Stmt body);
};

/// How a For loop's iterations may be executed.
enum class ForKind : uint8_t { kSerial, kParallel, kVectorized, kUnrolled, kThreadBinding };

/// Script name of a loop kind: "serial", "parallel", "vectorized", "unroll", "thread_binding".
const char* for_kind_name(ForKind kind);

/// `for loop_var in range(min, min + extent): body`.
struct For : StmtNode {
  RELAX_TIR_STMT_KIND(For);
  const Ref<Var> loop_var;
  /// Same dtype as loop_var.
  const PrimExpr min;
  /// Same dtype as loop_var.
  const PrimExpr extent;
  const ForKind kind;
  const Stmt body;
  /// The GPU thread index for kThreadBinding ("blockIdx.x", "threadIdx.x", "vthread"); empty
  /// for every other kind.
  const std::string thread_tag;
  /// Loop annotations ("pragma_unroll_explicit", schedule hints); may be null.
  const Attrs annotations;
  For(Ref<Var> loop_var, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body,
      std::string thread_tag = {}, Attrs annotations = {});
};

/// buffer[indices] = value. With a Ramp index it stores a vector (value has its lanes).
struct BufferStore : StmtNode {
  RELAX_TIR_STMT_KIND(BufferStore);
  const Ref<Buffer> buffer;
  const PrimExpr value;
  const std::vector<PrimExpr> indices;
  /// Checks the index count and that value's dtype is the buffer's with the access's lanes.
  BufferStore(Ref<Buffer> buffer, PrimExpr value, std::vector<PrimExpr> indices);
};

/// `if condition: then_case else: else_case` (else_case may be null).
struct IfThenElse : StmtNode {
  RELAX_TIR_STMT_KIND(IfThenElse);
  const PrimExpr condition;
  const Stmt then_case;
  const Stmt else_case;
  IfThenElse(PrimExpr condition, Stmt then_case, Stmt else_case = {});
};

/// Statements in order. Build with seq_stmt(), which flattens and drops no-ops.
struct SeqStmt : StmtNode {
  RELAX_TIR_STMT_KIND(SeqStmt);
  const std::vector<Stmt> seq;
  explicit SeqStmt(std::vector<Stmt> seq);
};

/// Allocates prod(extents) elements of `dtype` in `scope`, bound to `buffer_var` inside body.
struct Allocate : StmtNode {
  RELAX_TIR_STMT_KIND(Allocate);
  /// The data pointer (a handle Var); Buffers over this memory use it as their `data`.
  const Ref<Var> buffer_var;
  const DataType dtype;
  const std::vector<PrimExpr> extents;
  /// "global", "shared" or "local".
  const std::string scope;
  const Stmt body;
  const Attrs annotations;
  Allocate(Ref<Var> buffer_var, DataType dtype, std::vector<PrimExpr> extents, std::string scope,
           Stmt body, Attrs annotations = {});
};

/// Evaluates an expression for its side effect (an impure intrinsic call).
struct Evaluate : StmtNode {
  RELAX_TIR_STMT_KIND(Evaluate);
  const PrimExpr value;
  explicit Evaluate(PrimExpr value);
};

/// The role of a block iteration variable (the letters of T.axis.remap).
enum class IterVarType : uint8_t {
  kSpatial,  ///< "S": data-parallel; iterations are independent
  kReduce,   ///< "R": a reduction axis; iterations accumulate into the same outputs
  kOpaque,   ///< "O": anything else (a scan, an ordered dependence)
};

/// The letter of an iteration type in T.axis.remap: 'S', 'R' or 'O'.
char iter_var_type_letter(IterVarType type);
/// Script name: "spatial", "reduce", "opaque" (as in T.axis.spatial).
const char* iter_var_type_name(IterVarType type);

/// A block iteration variable: a var with a domain and a type.
struct IterVar : Object {
  static constexpr uint32_t kKind = uint32_t(TirMiscKind::kIterVar);
  const Ref<Var> var;
  const Range dom;
  const IterVarType type;
  IterVar(Ref<Var> var, Range dom, IterVarType type);
};

/// A buffer declared over a region of another buffer inside a block (T.match_buffer).
struct MatchBufferRegion {
  Ref<Buffer> buffer;
  BufferRegion source;
};

/// A block (T.block): see the header comment.
struct Block : StmtNode {
  RELAX_TIR_STMT_KIND(Block);
  const std::string name;
  const std::vector<Ref<IterVar>> iter_vars;
  const std::vector<BufferRegion> reads;
  const std::vector<BufferRegion> writes;
  /// Runs before the first reduction step; may be null.
  const Stmt init;
  const Stmt body;
  /// Buffers the block allocates (T.alloc_buffer); they live for the block's duration.
  const std::vector<Ref<Buffer>> alloc_buffers;
  const std::vector<MatchBufferRegion> match_buffers;
  /// Block annotations (T.block_attr); may be null.
  const Attrs annotations;
  Block(std::string name, std::vector<Ref<IterVar>> iter_vars, std::vector<BufferRegion> reads,
        std::vector<BufferRegion> writes, Stmt body, Stmt init = {},
        std::vector<Ref<Buffer>> alloc_buffers = {},
        std::vector<MatchBufferRegion> match_buffers = {}, Attrs annotations = {});
};

/// Executes `block` with its iteration variables bound to `iter_values` where `predicate` holds.
struct BlockRealize : StmtNode {
  RELAX_TIR_STMT_KIND(BlockRealize);
  /// One value per block iteration variable, typed like it.
  const std::vector<PrimExpr> iter_values;
  /// A bool scalar; `True` for an unconditional block.
  const PrimExpr predicate;
  const Ref<Block> block;
  BlockRealize(std::vector<PrimExpr> iter_values, PrimExpr predicate, Ref<Block> block);
};

#undef RELAX_TIR_STMT_KIND

// ---- Construction helpers.

/// buffer[indices] = value, checked like buffer_load (an InternalError on a wrong index
/// count or a value whose dtype is not the buffer's with the access's lanes).
Stmt buffer_store(const Ref<Buffer>& buffer, PrimExpr value, std::vector<PrimExpr> indices);

/// A sequence: nested SeqStmts are flattened, null statements dropped; a single statement is
/// returned as is; an empty sequence is `Evaluate(0)` (the no-op).
Stmt seq_stmt(std::vector<Stmt> stmts);

/// The no-op statement, Evaluate(0).
Stmt no_op();
/// True for Evaluate of a constant (a statement with no effect).
bool is_no_op(const Stmt& s);

/// A serial loop over [0, extent) (loop var typed like extent); body built from the var.
template <class F>
Stmt serial_for(const std::string& name, const PrimExpr& extent, F&& make_body) {
  Ref<Var> v = var(name, extent->dtype);
  Stmt body = make_body(v);
  return make_ref<For>(v, int_imm(0, extent->dtype), extent, ForKind::kSerial, std::move(body));
}

/// A block iteration variable with domain [0, extent).
Ref<IterVar> make_iter_var(Ref<Var> var, PrimExpr extent, IterVarType type);

/// Block + BlockRealize with predicate True: the common T.block form.
Stmt block_realize(std::vector<PrimExpr> iter_values, Ref<Block> block);

/// A short indented TVMScript-like rendering for messages and test failures. The script
/// printer (ir/printer.h) writes the real text format.
std::string to_string(const Stmt& s);

}  // namespace relax::tir

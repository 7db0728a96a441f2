// Accumulator promotion: the register tile of the register-blocked schedule (schedule_rules.h)
// moved into a local buffer for the duration of its reduction loops.
//
// The schedule leaves, after lowering,
//   for k1 in serial: ... for km in serial:          (the reduce loops of one output tile)
//     for r in unroll(MR): for c in vectorized(NR):
//       C[idx] = C[idx] + rhs                        (idx independent of k1..km)
// LLVM would keep C[idx] in registers across the k loops only if it could prove that the MR
// rows of the tile never overlap, and its alias analysis cannot see through the index
// arithmetic (`base + (row << 12 | 1024)`). So the codegen rewrites the nest itself into
//   acc = local[MR * NR]
//   for r, c: acc[r * NR + c] = C[idx]
//   for k1..km: for r, c: acc[r * NR + c] = acc[r * NR + c] + rhs
//   for r, c: C[idx] = acc[r * NR + c]
// whose stack buffer SROA turns into MR * NR / lanes vector registers (the row loop is unrolled
// by the codegen, so every index into acc is a constant). Equivalent to the original: rhs does
// not read C, no other statement runs inside the nest, and distinct (r, c) update distinct
// elements of C (required loosely: idx must depend on both r and c, as the tiles' row-major
// indices do; tensor parameters never overlap, see codegen_llvm.h).
//
// A tile of one column (a convolution with one output channel: no vectorized loop) is the
// row loop alone, one scalar accumulator per row; left in memory, its guarded update kept the
// row's index arithmetic (divisions by symbolic extents) in the k loop: 1.5 ms for a text
// detector's 32 -> 1 head, 60x its multiply-adds.
//
// A row tile that does not divide the rows (mr = 6 on 1024 rows) leaves the store under a
// guard `if base + r < M` that depends on the row only. Then the tile is promoted as
//   if base + 0 < M:
//     for r, c: if guard: acc[r * NR + c] = C[idx]
//     for k1..km: for r, c: acc[r * NR + c] = acc[r * NR + c] + rhs[r := select(guard, r, 0)]
//     for r, c: if guard: C[idx] = acc[r * NR + c]
// The update runs unguarded (no branch in the k loop): a row past the end reads what row 0
// reads, which the original nest reads too (the guard is increasing in r: row 0 is in range
// whenever any row is), and its accumulators are never stored.
//
// A column panel wider than the columns left (24 output channels in a zero-padded packed
// panel of 32: two whole vectors, not three half ones) leaves a guard on the columns only,
// `if base + c < N`: a mask, as the column loop is vectorized. Then
//   for r, c: acc[r * NR + c] = if_then_else(guard, C[idx], 0)
//   for k1..km: for r, c: acc[r * NR + c] = acc[r * NR + c] + rhs'
//   for r, c: if guard: C[idx] = acc[r * NR + c]
// where rhs' is rhs with each load indexed by the column masked by the guard (a masked vector
// load reads nothing for the lanes past the end). The accumulators are written whole, so they
// stay vector registers (a masked store into them would keep them in memory); the lanes past
// the end hold sums of zeros and are never stored. Row and column guards may come together.
#include "codegen_llvm.h"
#include "relax/arith/analyzer.h"
#include "relax/ir/structural_equal.h"
#include "relax/tir/intrin.h"

namespace relax::llvm_backend {

using namespace relax::tir;  // NOLINT
using tir::Var;              // not relax::Var

namespace {

bool uses_any(const PrimExpr& e, const std::vector<const Var*>& vars) {
  struct Finder : ExprVisitor {
    const std::vector<const Var*>* vars;
    bool found = false;
    using ExprVisitor::visit_;
    void visit_(const Var* op) override {
      for (const Var* v : *vars) found |= op == v;
    }
  } finder;
  finder.vars = &vars;
  finder.visit_expr(e);
  return finder.found;
}

bool loads_buffer(const PrimExpr& e, const Var* data) {
  struct Finder : ExprVisitor {
    const Var* data;
    bool found = false;
    using ExprVisitor::visit_;
    void visit_(const BufferLoad* op) override {
      found |= op->buffer->data.get() == data;
      ExprVisitor::visit_(op);
    }
  } finder;
  finder.data = data;
  finder.visit_expr(e);
  return finder.found;
}

/// True when `guard` is `a < b` with `a` increasing by exactly `row` (a - a[row := 0] is row)
/// and neither side using `col`: the guard of a row split that does not divide the rows.
bool row_guard(const PrimExpr& guard, const Var* row, const Var* col) {
  auto* lt = guard.as<LT>();
  if (!lt || uses_any(guard, {col}) || uses_any(lt->b, {row})) return false;
  PrimExpr at_zero =
      substitute(lt->a, [&](const Var* v) { return v == row ? int_imm(0, v->dtype) : PrimExpr(); });
  arith::Analyzer analyzer;
  PrimExpr step = analyzer.simplify(lt->a - at_zero);
  auto* v = step.as<Var>();
  return v == row;
}

/// The zero of a scalar type.
PrimExpr zero_of(DataType t) { return t.is_float() ? float_imm(0, t) : int_imm(0, t); }

}  // namespace

Stmt promote_accumulator(const For& loop) {
  // The chain of serial loops, each the whole body of the one before.
  std::vector<const For*> chain;
  const For* cur = &loop;
  while (cur && cur->kind == ForKind::kSerial) {
    chain.push_back(cur);
    cur = cur->body.as<For>();
  }
  if (!cur) return {};
  const For* row = nullptr;
  if (cur->kind == ForKind::kUnrolled) {
    row = cur;
    cur = cur->body.as<For>();
  }
  // The column loop; none in a tile of one column (a convolution with one output channel),
  // whose rows are then scalar accumulators. A panel of several vectors may come as an
  // unrolled loop of vectors (vectorize_panel: 48 columns as 3 x 16).
  const For* col_outer = nullptr;
  if (cur && cur->kind == ForKind::kUnrolled && row) {
    col_outer = cur;
    cur = cur->body.as<For>();
    if (!cur || !as_const_int(col_outer->extent) || !is_const_int(col_outer->min, 0)) return {};
  }
  const For* col = cur;
  if (col && col->kind != ForKind::kVectorized) return {};
  if (!col && !row) return {};
  const Stmt& body = col ? col->body : row->body;
  const Var* col_var = col ? col->loop_var.get() : nullptr;
  auto* store = body.as<BufferStore>();
  // Guards (see the header comment): on the row, and on the columns; null when there is none.
  PrimExpr guard, col_guard;
  std::vector<const Var*> col_vars;
  if (col_var) col_vars.push_back(col_var);
  if (col_outer) col_vars.push_back(col_outer->loop_var.get());
  if (auto* ite = body.as<IfThenElse>(); ite && !ite->else_case.defined()) {
    store = ite->then_case.as<BufferStore>();
    for (const PrimExpr& c : conjuncts(ite->condition)) {
      if (row && row_guard(c, row->loop_var.get(), col_var) &&
          !(col_outer && uses_any(c, {col_outer->loop_var.get()}))) {
        guard = guard.defined() ? logical_and(guard, c) : c;
      } else if (!col_vars.empty() && uses_any(c, col_vars) &&
                 !(row && uses_any(c, {row->loop_var.get()}))) {
        col_guard = col_guard.defined() ? logical_and(col_guard, c) : c;
      } else {
        return {};
      }
    }
  }
  int64_t one = 1;
  const int64_t* nr = col ? as_const_int(col->extent) : &one;
  int64_t panels = col_outer ? *as_const_int(col_outer->extent) : 1;
  const int64_t* mr = row ? as_const_int(row->extent) : nullptr;
  if (!store || !nr || (col && !is_const_int(col->min, 0)) ||
      (row && (!mr || !is_const_int(row->min, 0))))
    return {};
  if (store->indices.size() != 1 || store->value->dtype.lanes != 1) return {};
  const Buffer& out = *store->buffer;
  if (out.scope == "local") return {};  // already an accumulator (and what this produces)
  auto* add = store->value.as<Add>();
  if (!add) return {};
  auto* acc_load = add->a.as<BufferLoad>();
  if (!acc_load || acc_load->buffer.get() != store->buffer.get() || acc_load->indices.size() != 1 ||
      !structural_equal(acc_load->indices[0], store->indices[0], /*map_free_vars=*/false))
    return {};
  PrimExpr rhs = add->b;
  if (loads_buffer(rhs, out.data.get())) return {};
  std::vector<const Var*> chain_vars;
  for (const For* f : chain) chain_vars.push_back(f->loop_var.get());
  const PrimExpr& idx = store->indices[0];
  if (uses_any(idx, chain_vars)) return {};
  if (guard.defined() && uses_any(guard, chain_vars)) return {};
  if (col_guard.defined() && uses_any(col_guard, chain_vars)) return {};
  // Distinct (row, column) pairs must update distinct elements (each gets its own accumulator):
  // the index has to vary with both. (The schedule's tiles index C[row * N + column + ...].)
  if ((col && !uses_any(idx, {col_var})) || (row && !uses_any(idx, {row->loop_var.get()})) ||
      (col_outer && !uses_any(idx, {col_outer->loop_var.get()})))
    return {};

  int64_t rows = row ? *mr : 1;
  int64_t count = rows * panels * *nr;
  if (count * std::max(1, out.dtype.bytes()) > kMaxAccumulatorBytes) return {};
  DataType index_type = (col ? col : row)->loop_var->dtype;
  Ref<Buffer> acc =
      decl_buffer({int_imm(count, index_type)}, out.dtype, out.name + "_acc", "local");
  PrimExpr acc_idx = col ? PrimExpr(col->loop_var) : int_imm(0, index_type);
  if (col_outer)
    acc_idx = PrimExpr(col_outer->loop_var) * int_imm(*nr, index_type) + acc_idx;
  if (row)
    acc_idx = PrimExpr(row->loop_var) * int_imm(panels * *nr, row->loop_var->dtype) + acc_idx;
  // The (row, column) nest around `body`, with the original loop variables.
  auto tile = [&](Stmt body) {
    if (col) body = make_ref<For>(col->loop_var, col->min, col->extent, col->kind, body);
    if (col_outer)
      body = make_ref<For>(col_outer->loop_var, col_outer->min, col_outer->extent,
                           col_outer->kind, body);
    if (row) body = make_ref<For>(row->loop_var, row->min, row->extent, row->kind, body);
    return body;
  };
  const Var* row_var = row ? row->loop_var.get() : nullptr;
  PrimExpr first_row_in_range;
  if (guard.defined()) {
    PrimExpr zero = int_imm(0, row->loop_var->dtype);
    PrimExpr safe_row = make_ref<Select>(guard, PrimExpr(row->loop_var), zero);
    rhs = substitute(rhs, [&](const Var* v) { return v == row_var ? safe_row : PrimExpr(); });
    first_row_in_range =
        substitute(guard, [&](const Var* v) { return v == row_var ? zero : PrimExpr(); });
  }
  PrimExpr first = buffer_load(store->buffer, {idx});
  if (col_guard.defined()) {
    // Each load of rhs indexed by the columns, and the tile's first value, masked.
    struct Masker : ExprMutator {
      PrimExpr cond;
      const std::vector<const Var*>* cols;
      using ExprMutator::visit_;
      PrimExpr visit_(const BufferLoad* op) override {
        PrimExpr e = ExprMutator::visit_(op);
        bool by_column = false;
        for (const PrimExpr& i : op->indices) by_column |= uses_any(i, *cols);
        if (!by_column) return e;
        return call_intrin(Intrinsic::kIfThenElse, {cond, e, zero_of(op->dtype)});
      }
    } masker;
    masker.cond = col_guard;
    masker.cols = &col_vars;
    rhs = masker.visit_expr(rhs);
    first = call_intrin(Intrinsic::kIfThenElse, {col_guard, first, zero_of(out.dtype)});
  }
  auto guarded = [&](Stmt s) { return guard.defined() ? make_ref<IfThenElse>(guard, s) : s; };
  Stmt update = tile(buffer_store(acc, buffer_load(acc, {acc_idx}) + rhs, {acc_idx}));
  for (size_t i = chain.size(); i-- > 0;)
    update = make_ref<For>(chain[i]->loop_var, chain[i]->min, chain[i]->extent, chain[i]->kind,
                           update, chain[i]->thread_tag, chain[i]->annotations);
  Stmt load = tile(guarded(buffer_store(acc, first, {acc_idx})));
  Stmt store_back = buffer_store(store->buffer, buffer_load(acc, {acc_idx}), {idx});
  if (col_guard.defined()) store_back = make_ref<IfThenElse>(col_guard, store_back);
  Stmt write = tile(guarded(store_back));
  Stmt nest =
      make_ref<Allocate>(acc->data, out.dtype, std::vector<PrimExpr>{int_imm(count)}, "local",
                         make_ref<SeqStmt>(std::vector<Stmt>{load, update, write}));
  return guard.defined() ? make_ref<IfThenElse>(first_row_in_range, nest) : nest;
}

}  // namespace relax::llvm_backend

// vm-shape-lower (RFC §4.3 C1): symbolic shapes become run-time computations on the VM shape
// heap, an int64 tensor allocated once per function call.
//
// Each symbolic variable of a function gets a heap slot, written where the variable is
// defined: the parameters (checked at entry) and the match_casts. Then
//  - every parameter is checked at function entry: vm.builtin.check_tensor_info /
//    check_shape_info / check_tuple_info (recursively for tuple fields), whose error context
//    names the function, the parameter and its annotation; vm.builtin.match_shape stores the
//    dimensions that define a variable and asserts the others (constants and variables seen
//    before). A dimension given by an expression (`n * 2`) is asserted after all parameters
//    have been matched, once its value can be computed;
//  - R.match_cast(x, sinfo) is preceded by the same checks, with the binding named in the
//    context; the MatchCast itself stays (it still defines its variables for the well-formed
//    check) and vm-codegen compiles it as an alias `y = x`;
//  - a ShapeExpr with symbolic values becomes vm.builtin.make_shape reading heap slots;
//  - R.builtin.alloc_tensor(shape, dtype, dev) becomes R.vm.alloc_storage of the byte size
//    (itself a shape computed on the heap) and R.vm.alloc_tensor in it;
//  - a symbolic offset of R.vm.alloc_tensor becomes a shape of one value computed on the heap
//    (vm.builtin.alloc_tensor takes an offset as an integer or as such a shape).
// Shape arithmetic (anything but a constant or a variable: n * 4, (n + 1) // 2, ...) is
// computed by a small generated PrimFunc `shape_func*` over the heap (H[k] = H[i] * 4),
// called through R.vm.call_dps: the kernel path (tir-interp, or a compiled backend) executes
// it like any other kernel, so the VM needs no arithmetic builtins and every PrimExpr the
// simplifier knows is supported.
//
// Expects: after call-tir-rewrite (and preferably to-non-dataflow). Guarantees: no symbolic
// ShapeExpr and no R.builtin.alloc_tensor remain, every MatchCast has been checked; the ops left
// are those of relax/vm/vm_ops.h, packed calls and calls of module functions. A PrimValue whose
// value is symbolic is not supported (a relax::Error names it).
#include <unordered_map>

#include "relax/arith/analyzer.h"
#include "relax/ir/block_builder.h"
#include "relax/ir/op.h"
#include "relax/text/printer.h"
#include "relax/runtime/builtins.h"
#include "relax/vm/vm_ops.h"
#include "relax/tir/buffer.h"
#include "relax/tir/expr_functor.h"
#include "relax/ir/prim_func.h"
#include "relax/vm/passes.h"

namespace relax::vm {

using namespace relax::transform;

namespace {

using runtime::MakeShapeMode;
using runtime::MatchShapeMode;

Expr imm(int64_t v) { return make_prim_value(v); }

class ShapeLowerer {
 public:
  ShapeLowerer(IRModule* mod, std::string func_name)
      : mod_(mod), func_name_(std::move(func_name)) {}

  Ref<Function> run(const Ref<Function>& func) {
    heap_ = make_var("shape_heap", tensor_sinfo(DataType::Int(64), 1));
    std::vector<Binding> prologue;
    out_ = &prologue;
    std::vector<Deferred> deferred;
    for (const Ref<Var>& p : func->params) {
      std::string ctx =
          func_name_ + ": parameter " + p->name + ": " + print_struct_info(p->struct_info);
      check(p, p->struct_info, ctx, &deferred);
    }
    for (const Deferred& d : deferred) assert_compound(d);
    auto* seq = func->body.as<SeqExpr>();
    RX_ICHECK(seq != nullptr) << "vm-shape-lower: the body of " << func_name_
                              << " is not a SeqExpr";
    Expr body = lower_seq(*seq);
    if (heap_used_) {
      Expr alloc =
          call_builtin("vm.builtin.alloc_shape_heap", {imm(num_slots_)}, heap_->struct_info);
      prologue.insert(prologue.begin(), make_ref<VarBinding>(heap_, alloc));
    }
    if (prologue.empty() && body.same_as(func->body)) return func;
    auto* new_seq = body.as<SeqExpr>();
    std::vector<Block> blocks;
    if (!prologue.empty()) blocks.push_back(make_ref<BindingBlock>(std::move(prologue)));
    blocks.insert(blocks.end(), new_seq->blocks.begin(), new_seq->blocks.end());
    Expr new_body = make_ref<SeqExpr>(std::move(blocks), new_seq->body, new_seq->struct_info);
    return make_ref<Function>(func->params, new_body, func->ret_struct_info, func->is_pure,
                              func->attrs);
  }

 private:
  /// A match_shape whose expression dimensions are asserted once all variables are known.
  struct Deferred {
    Expr value;
    std::vector<PrimExpr> dims;
    std::string ctx;
  };

  // ---- Emitting bindings.

  Expr call_builtin(const std::string& name, std::vector<Expr> args, StructInfo ret) {
    Expr call = vm::call_builtin(name, std::move(args), ret);
    auto* c = call.as<Call>();
    return make_ref<Call>(c->op, std::vector<Expr>{c->args[0], with_sinfo_tuple(c->args[1])},
                          c->attrs, c->sinfo_args, ret);
  }
  /// The argument tuple with struct info (fields are leaves with struct info of their own).
  static Expr with_sinfo_tuple(const Expr& tuple) {
    auto* t = tuple.as<Tuple>();
    std::vector<StructInfo> fields;
    for (const Expr& f : t->fields) fields.push_back(get_struct_info(f));
    return make_ref<Tuple>(t->fields, tuple_sinfo(std::move(fields)));
  }
  Ref<Var> emit(const Expr& value, const std::string& hint) {
    Ref<Var> var = make_var(hint, get_struct_info(value));
    out_->push_back(make_ref<VarBinding>(var, value));
    return var;
  }
  void emit_void(const Expr& value) { emit(value, "_"); }

  // ---- The heap.

  int64_t new_slot() {
    heap_used_ = true;
    return num_slots_++;
  }

  /// Slots holding `exprs` (constants get -1): variables must be defined; other expressions
  /// are computed by one generated shape function.
  std::vector<int64_t> compute(const std::vector<PrimExpr>& exprs) {
    std::vector<int64_t> slots;
    std::vector<std::pair<int64_t, PrimExpr>> stores;
    for (const PrimExpr& e : exprs) {
      if (e.is<tir::IntImm>()) {
        slots.push_back(-1);
      } else if (auto* v = e.as<tir::Var>()) {
        slots.push_back(slot_of(v));
      } else {
        int64_t s = new_slot();
        stores.emplace_back(s, e);
        slots.push_back(s);
      }
    }
    if (!stores.empty()) emit_shape_func(stores);
    return slots;
  }

  int64_t slot_of(const tir::Var* v) {
    auto it = slot_of_.find(v);
    RX_CHECK(it != slot_of_.end()) << func_name_ << ": symbolic variable " << v->name
                                   << " is used before a parameter or match_cast defines it";
    return it->second;
  }

  void emit_shape_func(const std::vector<std::pair<int64_t, PrimExpr>>& stores) {
    Ref<tir::Buffer> heap = tir::decl_buffer({tir::var("heap_size")}, DataType::Int(64), "H");
    std::vector<tir::Stmt> body;
    for (const auto& [slot, e] : stores) {
      PrimExpr value = tir::substitute(e, [&](const tir::Var* v) -> PrimExpr {
        PrimExpr load = tir::buffer_load(heap, {tir::int_imm(slot_of(v))});
        return v->dtype == DataType::Int(64) ? load : tir::cast(v->dtype, load);
      });
      if (value->dtype != DataType::Int(64)) value = tir::cast(DataType::Int(64), value);
      body.push_back(
          make_ref<tir::BufferStore>(heap, value, std::vector<PrimExpr>{tir::int_imm(slot)}));
    }
    tir::Stmt stmt =
        body.size() == 1 ? body[0] : tir::Stmt(make_ref<tir::SeqStmt>(std::move(body)));
    Ref<tir::PrimFunc> func = tir::make_prim_func({heap}, stmt);
    std::string name = "shape_func";
    for (int i = 1; mod_->contains(name); ++i) name = "shape_func" + std::to_string(i);
    Ref<GlobalVar> gv = mod_->add(name, func);
    Expr call = vm::call_dps(gv, {heap_});
    auto* c = call.as<Call>();
    emit_void(make_ref<Call>(c->op, std::vector<Expr>{gv, with_sinfo_tuple(c->args[1])}, c->attrs,
                             c->sinfo_args, tuple_sinfo({})));
  }

  // ---- Checks and matches.

  void check(const Expr& value, const StructInfo& sinfo, const std::string& ctx,
             std::vector<Deferred>* deferred) {
    if (auto* t = sinfo.as<TensorStructInfo>()) {
      std::string dtype = t->is_unknown_dtype() ? "" : t->dtype.to_string();
      emit_void(call_builtin("vm.builtin.check_tensor_info",
                             {value, imm(t->ndim), make_string(dtype), make_string(ctx)},
                             tuple_sinfo({})));
      if (t->shape) match(value, *t->shape, ctx, deferred);
    } else if (auto* s = sinfo.as<ShapeStructInfo>()) {
      emit_void(call_builtin("vm.builtin.check_shape_info", {value, imm(s->ndim), make_string(ctx)},
                             tuple_sinfo({})));
      if (s->values) match(value, *s->values, ctx, deferred);
    } else if (auto* tup = sinfo.as<TupleStructInfo>()) {
      emit_void(call_builtin("vm.builtin.check_tuple_info",
                             {value, imm(int64_t(tup->fields.size())), make_string(ctx)},
                             tuple_sinfo({})));
      for (size_t i = 0; i < tup->fields.size(); ++i) {
        Ref<Var> field = emit(make_ref<TupleGetItem>(value, int(i), tup->fields[i]), "field");
        check(field, tup->fields[i], ctx + " (field " + std::to_string(i) + ")", deferred);
      }
    }
    // Prim, object and function values are not checked.
  }

  void match(const Expr& value, const std::vector<PrimExpr>& dims, const std::string& ctx,
             std::vector<Deferred>* deferred) {
    std::vector<Expr> args{value, heap_, imm(int64_t(dims.size()))};
    bool has_compound = false;
    heap_used_ = true;
    for (const PrimExpr& d : dims) {
      MatchShapeMode mode = MatchShapeMode::kNoOp;
      int64_t v = 0;
      if (auto* i = d.as<tir::IntImm>()) {
        mode = MatchShapeMode::kAssertEqualToImm;
        v = i->value;
      } else if (auto* var = d.as<tir::Var>()) {
        auto it = slot_of_.find(var);
        if (it != slot_of_.end()) {
          mode = MatchShapeMode::kAssertEqualToLoad;
          v = it->second;
        } else {
          mode = MatchShapeMode::kStoreToHeap;
          v = new_slot();
          slot_of_.emplace(var, v);
        }
      } else {
        has_compound = true;
      }
      args.push_back(imm(int64_t(mode)));
      args.push_back(imm(v));
    }
    args.push_back(make_string(ctx));
    emit_void(call_builtin("vm.builtin.match_shape", std::move(args), tuple_sinfo({})));
    if (has_compound) deferred->push_back({value, dims, ctx});
  }

  /// Asserts the expression dimensions of a deferred match.
  void assert_compound(const Deferred& d) {
    std::vector<PrimExpr> compound;
    for (const PrimExpr& e : d.dims)
      if (!e.is<tir::IntImm>() && !e.is<tir::Var>()) compound.push_back(e);
    std::vector<int64_t> slots = compute(compound);
    std::vector<Expr> args{d.value, heap_, imm(int64_t(d.dims.size()))};
    size_t k = 0;
    for (const PrimExpr& e : d.dims) {
      bool is_compound = !e.is<tir::IntImm>() && !e.is<tir::Var>();
      args.push_back(
          imm(int64_t(is_compound ? MatchShapeMode::kAssertEqualToLoad : MatchShapeMode::kNoOp)));
      args.push_back(imm(is_compound ? slots[k++] : 0));
    }
    args.push_back(make_string(d.ctx));
    emit_void(call_builtin("vm.builtin.match_shape", std::move(args), tuple_sinfo({})));
  }

  /// A shape value for `values`: the ShapeExpr itself when constant, else make_shape.
  Expr make_shape_value(const std::vector<PrimExpr>& values, const Expr& original) {
    bool constant = true;
    for (const PrimExpr& v : values) constant &= v.is<tir::IntImm>();
    if (constant) return original.defined() ? original : make_shape(values);
    std::vector<int64_t> slots = compute(values);
    std::vector<Expr> args{heap_, imm(int64_t(values.size()))};
    for (size_t i = 0; i < values.size(); ++i) {
      if (slots[i] < 0) {
        args.push_back(imm(int64_t(MakeShapeMode::kUseImm)));
        args.push_back(imm(values[i].as<tir::IntImm>()->value));
      } else {
        args.push_back(imm(int64_t(MakeShapeMode::kLoadShape)));
        args.push_back(imm(slots[i]));
      }
    }
    return emit(call_builtin("vm.builtin.make_shape", std::move(args), shape_sinfo(values)),
                "shape");
  }

  // ---- Expressions.

  Expr lower_leaf(const Expr& e) {
    if (auto* s = e.as<ShapeExpr>()) return make_shape_value(s->values, e);
    if (auto* p = e.as<PrimValue>()) {
      RX_CHECK(p->value.is<tir::IntImm>() || p->value.is<tir::FloatImm>())
          << func_name_
          << ": R.prim_value with a symbolic value is not supported by the VM build yet";
      return e;
    }
    if (auto* t = e.as<Tuple>()) {
      std::vector<Expr> fields;
      bool changed = false;
      for (const Expr& f : t->fields) {
        fields.push_back(lower_leaf(f));
        changed |= !fields.back().same_as(f);
      }
      return changed ? Expr(make_ref<Tuple>(std::move(fields), t->struct_info)) : e;
    }
    return e;
  }

  Expr lower_value(const Expr& e) {
    if (auto* call = e.as<Call>()) {
      auto* op = call->op.as<Op>();
      if (op && op->name == "relax.builtin.alloc_tensor") return expand_alloc(*call);
      std::vector<Expr> args;
      bool changed = false;
      for (size_t i = 0; i < call->args.size(); ++i) {
        const Expr& a = call->args[i];
        // A symbolic offset of R.vm.alloc_tensor (a scaled arena of static-plan-block-memory)
        // is computed on the heap and passed as a shape of one value.
        auto* offset = i == 1 && op && op->name == "relax.vm.alloc_tensor" ? a.as<PrimValue>()
                                                                          : nullptr;
        if (offset && !offset->value.is<tir::IntImm>())
          args.push_back(make_shape_value({offset->value}, Expr()));
        else
          args.push_back(lower_leaf(a));
        changed |= !args.back().same_as(a);
      }
      if (!changed) return e;
      return make_ref<Call>(call->op, std::move(args), call->attrs, call->sinfo_args,
                            call->struct_info);
    }
    if (auto* i = e.as<If>()) {
      Expr cond = lower_leaf(i->cond);
      Expr then_branch = lower_branch(i->then_branch);
      Expr else_branch = lower_branch(i->else_branch);
      return make_ref<If>(cond, then_branch, else_branch, i->struct_info);
    }
    if (auto* s = e.as<SeqExpr>()) return lower_seq(*s);
    RX_CHECK(!e.is<Function>()) << func_name_
                                << ": a local function is left; run lambda-lift before vm-shape-lower";
    return lower_leaf(e);
  }

  Expr lower_branch(const Expr& e) {
    if (auto* s = e.as<SeqExpr>()) return lower_seq(*s);
    std::vector<Binding>* saved = out_;
    std::vector<Binding> bindings;
    out_ = &bindings;
    Expr body = lower_leaf(e);
    out_ = saved;
    std::vector<Block> blocks;
    if (!bindings.empty()) blocks.push_back(make_ref<BindingBlock>(std::move(bindings)));
    return make_ref<SeqExpr>(std::move(blocks), body, get_struct_info(e));
  }

  Expr expand_alloc(const Call& call) {
    const Expr& shape = call.args.at(0);
    auto* dtype = call.args.at(1).as<DataTypeImm>();
    RX_ICHECK(dtype != nullptr) << "R.builtin.alloc_tensor without a dtype";
    std::vector<PrimExpr> values;
    if (auto* s = shape.as<ShapeExpr>()) {
      values = s->values;
    } else {
      auto* ss = get_struct_info(shape).as<ShapeStructInfo>();
      RX_CHECK(ss != nullptr && ss->values) << func_name_ << ": cannot allocate a tensor of shape "
                                            << describe(shape) << " whose dimensions are unknown";
      values = *ss->values;
    }
    PrimExpr nbytes = tir::int_imm(dtype->value.bytes());
    for (const PrimExpr& v : values)
      nbytes = nbytes * (v->dtype == DataType::Int(64) ? v : tir::cast(DataType::Int(64), v));
    nbytes = arith::simplify(nbytes);
    Expr size = make_shape_value({nbytes}, Expr());
    Expr storage_call = vm::vm_alloc_storage(size, 0);
    auto* sc = storage_call.as<Call>();
    Expr storage = emit(make_ref<Call>(sc->op, std::vector<Expr>{size, call.args.at(2)}, sc->attrs,
                                       sc->sinfo_args, object_sinfo()),
                        "storage");
    Expr shape_value = shape.is<ShapeExpr>() ? make_shape_value(values, shape) : shape;
    Expr tensor_call = vm::vm_alloc_tensor(storage, 0, shape_value, dtype->value);
    auto* tc = tensor_call.as<Call>();
    return make_ref<Call>(tc->op, tc->args, tc->attrs, tc->sinfo_args, call.struct_info);
  }

  Expr lower_seq(const SeqExpr& seq) {
    std::vector<Binding>* saved = out_;
    std::vector<Block> blocks;
    bool changed = false;
    for (const Block& block : seq.blocks) {
      std::vector<Binding> bindings;
      out_ = &bindings;
      for (const Binding& b : block->bindings) {
        if (auto* mc = b.as<MatchCast>()) {
          std::vector<Deferred> deferred;
          std::string ctx = func_name_ + ": match_cast " + mc->var->name + ": " +
                            print_struct_info(mc->struct_info);
          Expr value = lower_leaf(mc->value);
          check(value, mc->struct_info, ctx, &deferred);
          for (const Deferred& d : deferred) assert_compound(d);
          // Kept as the definition of its symbolic variables; its checks are done, so
          // vm-codegen compiles it as an alias.
          bindings.push_back(
              value.same_as(mc->value) ? b : make_ref<MatchCast>(mc->var, value, mc->struct_info));
          changed = true;
        } else {
          Expr value = lower_value(b->value);
          if (value.same_as(b->value)) {
            bindings.push_back(b);
          } else {
            bindings.push_back(make_ref<VarBinding>(b->var, value));
            changed = true;
          }
        }
      }
      changed |= bindings.size() != block->bindings.size();
      blocks.push_back(make_block(std::move(bindings), block->is_dataflow()));
    }
    std::vector<Binding> tail;
    out_ = &tail;
    Expr body = lower_value(seq.body);
    if (!tail.empty()) blocks.push_back(make_ref<BindingBlock>(std::move(tail)));
    out_ = saved;
    changed |= !body.same_as(seq.body);
    if (!changed) return Expr(&seq);
    return make_ref<SeqExpr>(std::move(blocks), body, seq.struct_info);
  }

  IRModule* mod_;
  std::string func_name_;
  Ref<Var> heap_;
  bool heap_used_ = false;
  int64_t num_slots_ = 0;
  std::unordered_map<const tir::Var*, int64_t> slot_of_;
  std::vector<Binding>* out_ = nullptr;
};

IRModule vm_shape_lower(const IRModule& mod, const PassOptions&, PassContext&) {
  vm::register_vm_ops();
  IRModule result = mod;
  for (const auto& entry : mod.functions()) {
    auto func = entry.func.as_ref<Function>();
    if (!func.defined()) continue;
    Ref<Function> lowered = ShapeLowerer(&result, entry.gv->name).run(func);
    if (!lowered.same_as(func)) result.update(entry.gv, lowered);
  }
  return result;
}

}  // namespace

void register_vm_shape_lower(PassRegistry& registry) {
  vm::register_vm_ops();
  registry.add({"vm-shape-lower",
                "Compute symbolic shapes on the VM shape heap; check arguments at function entry",
                Granularity::kModule,
                {}},
               ModuleTransform(vm_shape_lower));
}

}  // namespace relax::vm

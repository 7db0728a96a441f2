// The SPIR-V emitter (spirv_emitter.h): the module's interface (builtins, storage buffers,
// the parameter block of spirv_abi.h), the statements, and the helpers the expression and
// intrinsic files share.
#include "spirv_emitter.h"

#include <unordered_set>

#include "../spirv_abi.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/intrin.h"
#include "relax/tir/stmt_functor.h"

namespace relax::vulkan {

namespace {

/// Variables used anywhere in a statement, including inside accessed buffers' shapes.
struct UsedVars : tir::StmtExprVisitor {
  std::unordered_set<const tir::Var*> used;
  using StmtExprVisitor::visit_;
  void visit_(const tir::Var* op) override { used.insert(op); }
  void visit_buffer(const Ref<tir::Buffer>& b) override {
    for (const auto& e : b->shape) visit_expr(e);
    for (const auto& e : b->strides) visit_expr(e);
    if (b->elem_offset.defined()) visit_expr(b->elem_offset);
  }
  void visit_(const tir::BufferStore* op) override {
    visit_buffer(op->buffer);
    StmtExprVisitor::visit_(op);
  }
};

DLDataType dl(DataType t) { return DLDataType{t.code, t.bits, t.lanes}; }

}  // namespace

std::vector<Ref<tir::Var>> kernel_scalars(const tir::GpuKernel& kernel) {
  const tir::PrimFunc& f = *kernel.func;
  std::vector<Ref<tir::Var>> out;
  std::unordered_set<const tir::Var*> seen;
  for (const auto& p : f.params)
    if (!p->dtype.is_handle() && seen.insert(p.get()).second) out.push_back(p);
  UsedVars uv;
  uv.visit_stmt(f.body);
  for (const auto& [p, b] : f.buffer_map) {
    for (const auto& d : b->shape) {
      auto* v = d.as<tir::Var>();
      RX_ICHECK(!v || !uv.used.count(v) || seen.count(v))
          << "vulkan: kernel " << kernel.name << " reads the shape variable " << v->name
          << " without taking it as a parameter (the core's kernel calling convention)";
    }
  }
  return out;
}

namespace detail {

bool reads_memory(const PrimExpr& e) {
  struct Finder : tir::ExprVisitor {
    bool found = false;
    using ExprVisitor::visit_;
    void visit_(const tir::BufferLoad*) override { found = true; }
  } f;
  f.visit_expr(e);
  return f.found;
}

void Emitter::fail(const std::string& what) const {
  RX_THROW() << "vulkan: kernel " << k_.name << ": " << what;
}

void Emitter::need(const char* feature, bool enabled, const std::string& why) {
  if (!enabled)
    fail(why + " needs the device feature '" + feature + "', which the target disables (" +
         feature + "=0)");
  out_.requirements.insert(feature);
}

int Emitter::ibits(DataType t) const {
  return t.is_integer_like() && t.bits == 64 && !f_.int64 ? 32 : t.bits;
}

int Emitter::fbits(DataType t) const {
  if (t.code == DataType::kBFloat || f16_emulated(t)) return 32;
  return t.bits;
}

uint32_t Emitter::ctype(DataType t) {
  if (t.lanes != 1) fail("vector type " + t.to_string() + " is not supported");
  if (t.is_bool()) return b_.type_bool();
  if (t.is_integer_like()) {
    switch (t.bits) {
      case 8:
        need(kFeatureInt8, f_.int8, t.to_string() + " arithmetic");
        b_.capability(spv::Capability::Int8);
        break;
      case 16:
        need(kFeatureInt16, f_.int16, t.to_string() + " arithmetic");
        b_.capability(spv::Capability::Int16);
        break;
      case 32:
        break;
      case 64:
        if (!f_.int64) return b_.type_int(32, t.is_int());  // demoted: see ibits()
        need(kFeatureInt64, true, t.to_string() + " arithmetic");
        b_.capability(spv::Capability::Int64);
        break;
      default:
        fail("no SPIR-V type for " + t.to_string());
    }
    return b_.type_int(t.bits, t.is_int());
  }
  if (t.code == DataType::kBFloat && t.bits == 16) return b_.type_float(32);
  if (t.code == DataType::kFloat) {
    if (t.bits == 16) {
      if (!f_.float16) return b_.type_float(32);
      need(kFeatureFloat16, true, "float16");
      b_.capability(spv::Capability::Float16);
      return b_.type_float(16);
    }
    if (t.bits == 32) return b_.type_float(32);
    if (t.bits == 64) {
      need(kFeatureFloat64, f_.float64, "float64");
      b_.capability(spv::Capability::Float64);
      return b_.type_float(64);
    }
  }
  fail("no SPIR-V type for " + t.to_string());
}

uint32_t Emitter::stype(DataType t) {
  auto storage = [&](int bits) {
    if (bits == 8) {
      need(kFeatureStorage8, f_.storage8, t.to_string() + " buffers");
      b_.capability(spv::Capability::StorageBuffer8BitAccess);
      b_.extension("SPV_KHR_8bit_storage");
    } else {
      need(kFeatureStorage16, f_.storage16, t.to_string() + " buffers");
      b_.capability(spv::Capability::StorageBuffer16BitAccess);
      b_.extension("SPV_KHR_16bit_storage");
    }
  };
  if (t.lanes != 1) fail("vector type " + t.to_string() + " is not supported");
  if (t.is_bool()) {
    storage(8);
    return b_.type_int(8, false);
  }
  if (t.code == DataType::kBFloat) {
    storage(16);
    return b_.type_int(16, false);
  }
  if (t.code == DataType::kFloat && t.bits == 16) {
    storage(16);
    if (f_.float16) ctype(t);
    return b_.type_float(16);
  }
  if (t.is_integer_like() && (t.bits == 8 || t.bits == 16)) storage(t.bits);
  if (t.is_integer_like() && t.bits == 64 && !f_.int64)
    need(kFeatureInt64, false, t.to_string() + " buffers");
  return ctype(t);
}

uint32_t Emitter::cint(DataType t, int64_t v) {
  if (t.is_bool()) return b_.const_bool(v != 0);
  if (t.is_float()) return cfloat(t, double(v));
  int bits = ibits(t);
  if (bits < t.bits) {  // a demoted int64: the constant must fit
    bool fits = t.is_int() ? v >= INT32_MIN && v <= INT32_MAX : v >= 0 && v <= int64_t(UINT32_MAX);
    if (!fits)
      need(kFeatureInt64, false, "the " + t.to_string() + " constant " + std::to_string(v));
  }
  return b_.const_int(ctype(t), bits, t.is_int(), uint64_t(v));
}

uint32_t Emitter::cfloat(DataType t, double v) {
  if (!t.is_float()) return cint(t, int64_t(v));
  return b_.const_float(ctype(t), fbits(t), v);
}

uint32_t Emitter::op(spv::Op o, uint32_t type, const std::vector<uint32_t>& args) {
  uint32_t id = b_.fresh_id();
  std::vector<uint32_t> ops{type, id};
  ops.insert(ops.end(), args.begin(), args.end());
  SpirvBuilder::append(body_, o, ops);
  return id;
}

void Emitter::op0(spv::Op o, const std::vector<uint32_t>& args) {
  SpirvBuilder::append(body_, o, args);
}

uint32_t Emitter::ext(GLSLstd450 inst, uint32_t type, const std::vector<uint32_t>& args) {
  std::vector<uint32_t> ops{b_.glsl(), uint32_t(inst)};
  ops.insert(ops.end(), args.begin(), args.end());
  return op(spv::Op::OpExtInst, type, ops);
}

void Emitter::start_block(uint32_t label) {
  op0(spv::Op::OpLabel, {label});
  cur_label_ = label;
}

Value Emitter::branch_value(uint32_t cond, DataType t, const std::function<Value()>& then_fn,
                            const std::function<Value()>& else_fn) {
  uint32_t then_l = new_label(), else_l = new_label(), merge = new_label();
  op0(spv::Op::OpSelectionMerge, {merge, 0});
  op0(spv::Op::OpBranchConditional, {cond, then_l, else_l});
  start_block(then_l);
  Value a = then_fn();
  uint32_t a_end = cur_label_;
  op0(spv::Op::OpBranch, {merge});
  start_block(else_l);
  Value b = else_fn();
  uint32_t b_end = cur_label_;
  op0(spv::Op::OpBranch, {merge});
  start_block(merge);
  return {op(spv::Op::OpPhi, ctype(t), {a.id, a_end, b.id, b_end}), t};
}

uint32_t Emitter::truthy(Value v) {
  if (v.t.is_bool()) return v.id;
  uint32_t bt = b_.type_bool();
  if (v.t.is_float()) return op(spv::Op::OpFUnordNotEqual, bt, {v.id, cfloat(v.t, 0)});
  return op(spv::Op::OpINotEqual, bt, {v.id, cint(v.t, 0)});
}

uint32_t Emitter::index32(Value v) {
  if (!v.t.is_integer_like() || v.t.is_bool()) fail("index of type " + v.t.to_string());
  return cast(v, DataType::Int(32)).id;
}

Slot& Emitter::slot_of(const tir::Buffer& b, const char* what) {
  auto it = slots_.find(b.data.get());
  if (it == slots_.end())
    fail(std::string(what) + " buffer " + b.name + ", whose memory (" + b.data->name +
         ") is neither a kernel parameter nor allocated in the kernel");
  if (it->second.dtype != b.dtype)
    fail(std::string(what) + " buffer " + b.name + " as " + b.dtype.to_string() +
         " over memory of " + it->second.dtype.to_string());
  return it->second;
}

uint32_t Emitter::flat_index(const tir::Buffer& b, const std::vector<PrimExpr>& indices) {
  if (indices.size() == 1 && b.strides.empty() && tir::is_const_int(b.elem_offset, 0))
    return index32(visit_expr(indices[0]));
  // General layout: elem_offset + sum(index * stride), compact strides from the shape.
  DataType i32t = DataType::Int(32);
  uint32_t it = ctype(i32t);
  uint32_t acc = b.elem_offset.defined() ? index32(visit_expr(b.elem_offset)) : i32(0);
  uint32_t stride = i32(1);
  for (size_t d = indices.size(); d-- > 0;) {
    uint32_t s = b.strides.empty() ? stride : index32(visit_expr(b.strides[d]));
    uint32_t term = op(spv::Op::OpIMul, it, {index32(visit_expr(indices[d])), s});
    acc = op(spv::Op::OpIAdd, it, {acc, term});
    if (b.strides.empty() && d > 0)
      stride = op(spv::Op::OpIMul, it, {stride, index32(visit_expr(b.shape[d]))});
  }
  return acc;
}

uint32_t Emitter::element_ptr(const Slot& s, uint32_t index) {
  uint32_t ptr = b_.type_pointer(s.sc, s.elem_type);
  if (s.kind == Slot::kStorage) {
    uint32_t at = op(spv::Op::OpIAdd, ctype(DataType::Int(32)), {s.offset, index});
    return op(spv::Op::OpAccessChain, ptr, {s.var, i32(0), at});
  }
  return op(spv::Op::OpAccessChain, ptr, {s.var, index});
}

// ---------------------------------------------------------------- statements

void Emitter::emit_stmt(const tir::Stmt& s) {
  using namespace tir;
  if (auto* o = s.as<SeqStmt>()) {
    for (const auto& c : o->seq) emit_stmt(c);
  } else if (auto* o = s.as<LetStmt>()) {
    if (o->var->dtype.is_handle()) fail("a let of the handle " + o->var->name);
    vars_[o->var.get()] = visit_expr(o->value);
    emit_stmt(o->body);
    vars_.erase(o->var.get());
  } else if (auto* o = s.as<For>()) {
    emit_for(o);
  } else if (auto* o = s.as<IfThenElse>()) {
    emit_if(o);
  } else if (auto* o = s.as<Allocate>()) {
    emit_allocate(o);
  } else if (auto* o = s.as<BufferStore>()) {
    emit_store(o);
  } else if (auto* o = s.as<Evaluate>()) {
    if (is_storage_sync(o->value)) {
      // Workgroup execution and memory scope, AcquireRelease | WorkgroupMemory (0x108): what
      // every driver accepts (TVM's SequentiallyConsistent barrier is rejected by newer ones).
      uint32_t wg = u32(uint32_t(spv::Scope::Workgroup));
      op0(spv::Op::OpControlBarrier, {wg, wg, u32(0x108)});
    } else if (!o->value.as<IntImm>()) {
      visit_expr(o->value);
    }
  } else if (auto* o = s.as<AssertStmt>()) {
    fail("an assert inside the kernel (\"" + o->message + "\"): a GPU kernel cannot report it");
  } else {
    fail(std::string("the statement kind ") + stmt_kind_name(s->kind()) +
         " (the kernel should be lowered)");
  }
}

void Emitter::emit_for(const tir::For* o) {
  DataType t = o->loop_var->dtype;
  if (o->kind == tir::ForKind::kThreadBinding) {
    const std::string& tag = o->thread_tag;
    uint32_t vec = 0;
    if (tag.rfind("blockIdx.", 0) == 0) vec = workgroup_id_;
    if (tag.rfind("threadIdx.", 0) == 0) vec = local_id_;
    if (vec == 0 || tag.size() != (vec == workgroup_id_ ? 10u : 11u) || tag.back() < 'x' ||
        tag.back() > 'z')
      fail("the thread binding '" + tag + "' of loop " + o->loop_var->name);
    uint32_t comp = op(spv::Op::OpCompositeExtract, ctype(DataType::UInt(32)),
                       {vec, uint32_t(tag.back() - 'x')});
    Value v = cast({comp, DataType::UInt(32)}, t);
    Value mn = visit_expr(o->min);
    if (!tir::is_const_int(o->min, 0)) v.id = op(spv::Op::OpIAdd, ctype(t), {v.id, mn.id});
    vars_[o->loop_var.get()] = v;
    emit_stmt(o->body);
    vars_.erase(o->loop_var.get());
    return;
  }
  // A serial loop over a Function variable: header (merge), condition, body, continue.
  uint32_t type = ctype(t);
  Value mn = visit_expr(o->min), ext_v = visit_expr(o->extent);
  uint32_t end = op(spv::Op::OpIAdd, type, {mn.id, ext_v.id});
  uint32_t counter = b_.fresh_id();
  SpirvBuilder::append(fvars_, spv::Op::OpVariable,
                       {b_.type_pointer(spv::StorageClass::Function, type), counter,
                        uint32_t(spv::StorageClass::Function)});
  op0(spv::Op::OpStore, {counter, mn.id});
  uint32_t header = new_label(), cond = new_label(), body = new_label(), cont = new_label(),
           merge = new_label();
  op0(spv::Op::OpBranch, {header});
  start_block(header);
  op0(spv::Op::OpLoopMerge, {merge, cont, 0});
  op0(spv::Op::OpBranch, {cond});
  start_block(cond);
  uint32_t i = op(spv::Op::OpLoad, type, {counter});
  uint32_t lt = op(t.is_int() ? spv::Op::OpSLessThan : spv::Op::OpULessThan, b_.type_bool(),
                   {i, end});
  op0(spv::Op::OpBranchConditional, {lt, body, merge});
  start_block(body);
  vars_[o->loop_var.get()] = {op(spv::Op::OpLoad, type, {counter}), t};
  emit_stmt(o->body);
  vars_.erase(o->loop_var.get());
  op0(spv::Op::OpBranch, {cont});
  start_block(cont);
  uint32_t j = op(spv::Op::OpLoad, type, {counter});
  op0(spv::Op::OpStore, {counter, op(spv::Op::OpIAdd, type, {j, cint(t, 1)})});
  op0(spv::Op::OpBranch, {header});
  start_block(merge);
}

void Emitter::emit_if(const tir::IfThenElse* o) {
  uint32_t c = truthy(visit_expr(o->condition));
  uint32_t then_l = new_label(), merge = new_label();
  uint32_t else_l = o->else_case.defined() ? new_label() : merge;
  op0(spv::Op::OpSelectionMerge, {merge, 0});
  op0(spv::Op::OpBranchConditional, {c, then_l, else_l});
  start_block(then_l);
  emit_stmt(o->then_case);
  op0(spv::Op::OpBranch, {merge});
  if (o->else_case.defined()) {
    start_block(else_l);
    emit_stmt(o->else_case);
    op0(spv::Op::OpBranch, {merge});
  }
  start_block(merge);
}

void Emitter::emit_allocate(const tir::Allocate* o) {
  int64_t n = 1;
  for (const auto& e : o->extents) {
    const int64_t* c = tir::as_const_int(e);
    if (!c) fail("allocation " + o->buffer_var->name + " has the non-constant extent " +
                 tir::to_string(e));
    n *= *c;
  }
  if (n <= 0 || n > (int64_t(1) << 31)) fail("allocation " + o->buffer_var->name + " of " +
                                             std::to_string(n) + " elements");
  Slot s;
  s.dtype = o->dtype;
  s.elem_type = ctype(o->dtype);
  uint32_t arr = b_.type_array(s.elem_type, uint32_t(n));
  s.var = b_.fresh_id();
  if (o->scope == "shared") {
    // Workgroup arrays carry no ArrayStride: layout decorations there are invalid for newer
    // validators and drivers (TVM #18914).
    s.kind = Slot::kWorkgroup;
    s.sc = spv::StorageClass::Workgroup;
    b_.inst(SpirvBuilder::kGlobal, spv::Op::OpVariable,
            {b_.type_pointer(s.sc, arr), s.var, uint32_t(s.sc)});
  } else if (o->scope == "local") {
    s.kind = Slot::kFunction;
    s.sc = spv::StorageClass::Function;
    SpirvBuilder::append(fvars_, spv::Op::OpVariable,
                         {b_.type_pointer(s.sc, arr), s.var, uint32_t(s.sc)});
  } else {
    fail("the '" + o->scope + "' allocation " + o->buffer_var->name +
         " inside the kernel (only shared and local memory can be allocated there)");
  }
  b_.name(s.var, o->buffer_var->name);
  slots_[o->buffer_var.get()] = s;
  emit_stmt(o->body);
  slots_.erase(o->buffer_var.get());
}

void Emitter::emit_store(const tir::BufferStore* o) {
  const Slot& s = slot_of(*o->buffer, "store to");
  Value v = visit_expr(o->value);
  uint32_t ptr = element_ptr(s, flat_index(*o->buffer, o->indices));
  uint32_t stored = v.id;
  if (s.kind == Slot::kStorage) {
    DataType t = s.dtype;
    if (t.is_bool()) {
      uint32_t u = op(spv::Op::OpSelect, ctype(DataType::UInt(32)), {v.id, u32(1), u32(0)});
      stored = op(spv::Op::OpUConvert, s.elem_type, {u});
    } else if (t.code == DataType::kBFloat) {
      uint32_t bits = op(spv::Op::OpShiftRightLogical, ctype(DataType::UInt(32)),
                         {bf16_round_bits(v.id), u32(16)});
      stored = op(spv::Op::OpUConvert, s.elem_type, {bits});
    } else if (f16_emulated(t)) {
      stored = op(spv::Op::OpFConvert, s.elem_type, {v.id});
    }
  }
  op0(spv::Op::OpStore, {ptr, stored});
}

// ---------------------------------------------------------------- the module

void Emitter::setup_interface() {
  const tir::PrimFunc& f = *k_.func;
  b_.capability(spv::Capability::Shader);
  b_.inst(SpirvBuilder::kMemoryModel, spv::Op::OpMemoryModel,
          {uint32_t(spv::AddressingModel::Logical), uint32_t(spv::MemoryModel::GLSL450)});
  // Builtins: WorkgroupId (blockIdx) and LocalInvocationId (threadIdx).
  uint32_t uvec3 = b_.type_vector(b_.type_int(32, false), 3);
  uint32_t in_ptr = b_.type_pointer(spv::StorageClass::Input, uvec3);
  uint32_t wg_var = b_.fresh_id(), local_var = b_.fresh_id();
  builtin_vars_ = {wg_var, local_var};
  for (auto [var, bi, nm] : {std::tuple{wg_var, spv::BuiltIn::WorkgroupId, "blockIdx"},
                             std::tuple{local_var, spv::BuiltIn::LocalInvocationId, "threadIdx"}}) {
    b_.inst(SpirvBuilder::kGlobal, spv::Op::OpVariable,
            {in_ptr, var, uint32_t(spv::StorageClass::Input)});
    b_.decorate(var, spv::Decoration::BuiltIn, {uint32_t(bi)});
    b_.name(var, nm);
  }
  workgroup_id_ = op(spv::Op::OpLoad, uvec3, {wg_var});
  local_id_ = op(spv::Op::OpLoad, uvec3, {local_var});

  // Storage buffers: binding i for the i-th handle parameter.
  std::vector<uint32_t> buffer_vars;
  std::vector<const tir::Buffer*> buffers;
  for (const auto& p : f.params) {
    if (!p->dtype.is_handle()) continue;
    Ref<tir::Buffer> buf = f.buffer_of(p);
    if (!buf.defined()) fail("the handle parameter " + p->name + " has no buffer");
    Slot s;
    s.dtype = buf->dtype;
    s.elem_type = stype(buf->dtype);
    uint32_t rt = b_.type_runtime_array(s.elem_type);
    b_.decorate(rt, spv::Decoration::ArrayStride, {uint32_t(buf->dtype.bytes())});
    uint32_t st = b_.type_struct({rt});
    b_.decorate(st, spv::Decoration::Block);
    b_.member_decorate(st, 0, spv::Decoration::Offset, {0});
    s.var = b_.fresh_id();
    b_.inst(SpirvBuilder::kGlobal, spv::Op::OpVariable,
            {b_.type_pointer(spv::StorageClass::StorageBuffer, st), s.var,
             uint32_t(spv::StorageClass::StorageBuffer)});
    b_.decorate(s.var, spv::Decoration::DescriptorSet, {0});
    b_.decorate(s.var, spv::Decoration::Binding, {uint32_t(buffers.size())});
    b_.name(s.var, buf->name);
    slots_[p.get()] = s;
    buffers.push_back(buf.get());
    out_.buffer_dtypes.push_back(dl(buf->dtype));
  }

  // The parameter block: scalars, then one int32 element offset per buffer.
  std::vector<Ref<tir::Var>> scalars = kernel_scalars(k_);
  std::vector<DLDataType> sdt;
  std::vector<uint32_t> members;
  for (const auto& v : scalars) {
    DataType t = v->dtype;
    if (t.lanes != 1 || !(t.bits == 32 || t.bits == 64) || t.is_bool())
      fail("the scalar parameter " + v->name + " of type " + t.to_string() +
           " (int32, int64, float32 or float64 expected)");
    sdt.push_back(dl(t));
    members.push_back(ctype(t));
  }
  out_.scalar_dtypes = sdt;
  for (size_t i = 0; i < buffers.size(); ++i) members.push_back(ctype(DataType::Int(32)));
  if (members.empty()) return;
  ParamBlockLayout layout = param_block_layout(sdt, buffers.size());
  uint32_t st = b_.type_struct(members);
  b_.decorate(st, spv::Decoration::Block);
  b_.name(st, "Params");
  std::vector<uint32_t> offsets = layout.scalar_offsets;
  offsets.insert(offsets.end(), layout.offset_offsets.begin(), layout.offset_offsets.end());
  for (size_t m = 0; m < members.size(); ++m)
    b_.member_decorate(st, uint32_t(m), spv::Decoration::Offset, {offsets[m]});
  spv::StorageClass sc = layout.uses_uniform_buffer() ? spv::StorageClass::Uniform
                                                      : spv::StorageClass::PushConstant;
  uint32_t var = b_.fresh_id();
  b_.inst(SpirvBuilder::kGlobal, spv::Op::OpVariable,
          {b_.type_pointer(sc, st), var, uint32_t(sc)});
  b_.name(var, "params");
  if (sc == spv::StorageClass::Uniform) {
    b_.decorate(var, spv::Decoration::DescriptorSet, {0});
    b_.decorate(var, spv::Decoration::Binding, {uint32_t(buffers.size())});
  }
  for (size_t m = 0; m < members.size(); ++m) {
    uint32_t ptr = op(spv::Op::OpAccessChain, b_.type_pointer(sc, members[m]),
                      {var, i32(int32_t(m))});
    uint32_t val = op(spv::Op::OpLoad, members[m], {ptr});
    if (m < scalars.size())
      vars_[scalars[m].get()] = {val, scalars[m]->dtype};
    else
      slots_[buffers[m - scalars.size()]->data.get()].offset = val;
  }
}

SpirvKernel Emitter::run() {
  std::array<uint32_t, 3> block{};
  for (int d = 0; d < 3; ++d) {
    const int64_t* c = tir::as_const_int(k_.block[d]);
    if (!c || *c <= 0 || *c > 65535) fail("block size " + tir::to_string(k_.block[d]) +
                                          " (a positive constant is required)");
    block[size_t(d)] = uint32_t(*c);
  }
  out_.block = block;
  uint32_t entry = b_.fresh_id(), first_label = b_.fresh_id();
  cur_label_ = first_label;
  setup_interface();
  emit_stmt(k_.func->body);
  op0(spv::Op::OpReturn, {});

  uint32_t void_t = b_.type_void();
  uint32_t fn_t = b_.type_function(void_t, {});
  b_.code(spv::Op::OpFunction, {void_t, entry, 0, fn_t});
  b_.code(spv::Op::OpLabel, {first_label});
  b_.raw(SpirvBuilder::kFunction, fvars_);  // Function variables open the first block
  b_.raw(SpirvBuilder::kFunction, body_);
  b_.code(spv::Op::OpFunctionEnd, {});
  // SPIR-V 1.3: the interface lists the Input/Output variables only.
  std::vector<uint32_t> ep{uint32_t(spv::ExecutionModel::GLCompute), entry};
  for (uint32_t w : SpirvBuilder::literal(k_.name)) ep.push_back(w);
  ep.push_back(builtin_vars_[0]);
  ep.push_back(builtin_vars_[1]);
  b_.inst(SpirvBuilder::kEntryPoint, spv::Op::OpEntryPoint, ep);
  b_.inst(SpirvBuilder::kExecMode, spv::Op::OpExecutionMode,
          {entry, uint32_t(spv::ExecutionMode::LocalSize), block[0], block[1], block[2]});
  out_.words = b_.finish(0x00010300);
  return out_;
}

}  // namespace detail
}  // namespace relax::vulkan

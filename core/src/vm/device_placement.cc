// device-placement: decides where every tensor of a heterogeneous module lives and inserts
// the copies between devices.
//
// Options: `device` (the vdevice, "kind" or "kind:i", that runs kernels; default: the
// module's second vdevice, else its first) and `host` (the vdevice of the CPU side; default:
// the module's first vdevice, which it must be: VM device 0 is the host). A module without vdevices is returned unchanged when neither
// option is given (the CPU path does not change), and is an error otherwise.
//
// Rules, per Relax function:
//   - a call_tir runs on `device` unless its PrimFunc has the attribute relax.host_only = true
//     (kernels the device cannot run: sort, NMS, data-dependent ops), then on `host`; its
//     outputs get that vdevice and the PrimFunc the attribute relax.vdevice = "kind:i";
//   - every other call (VM builtins, call_dps_packed, call_pure_packed, ops left for the VM)
//     runs on `host`; a call of a Relax function takes its arguments where the callee's
//     parameters say (host unless annotated) and returns them where its result says;
//   - parameters and results live on `host` unless their struct info names a vdevice; a
//     result computed elsewhere is copied back; If conditions and branch results go to host;
//   - at every boundary (an argument on another device than its call's) an R.to_vdevice is
//     inserted, once per value and destination within a binding block;
//   - a constant used on the device is wrapped in R.to_vdevice too: vm-codegen turns a copy of
//     a constant into vm.builtin.constant_to_vdevice, which uploads it on first use and keeps it
//     on the device for the life of the VM (one upload however often the code runs).
// Struct info records the placement: every tensor's vdevice is set.
//
// Statistics (module attributes, read by compile --stats): device_copies (R.to_vdevice
// inserted), host_kernels (the host_only PrimFuncs, by name, sorted; absent when none),
// host_ops (the packed functions over tensors the host runs — data-dependent ops such as
// vm.builtin.nonzero — sorted; absent when none).
//
// Expects: normalized IR after legalize-ops (and after fusion: it places final kernels);
// before call-tir-rewrite, which allocates each output on its vdevice. Guarantees: every
// tensor argument of a call_tir is on the call's device.
#include <algorithm>
#include <map>
#include <set>

#include "relax/ir/expr_functor.h"
#include "relax/ir/op.h"
#include "relax/ir/prim_func.h"
#include "relax/op/op.h"
#include "relax/vm/passes.h"

namespace relax::vm {

using namespace relax::transform;

namespace {

bool is_host_only(const tir::PrimFunc& f) {
  const AttrValue* v = f.attrs.defined() ? f.attrs->find("relax.host_only") : nullptr;
  if (v == nullptr) return false;
  if (auto* b = std::get_if<bool>(v)) return *b;
  if (auto* i = std::get_if<int64_t>(v)) return *i != 0;
  return false;
}

/// `s` with every tensor that has no vdevice placed on `ref` (force: every tensor).
StructInfo place_sinfo(const StructInfo& s, const std::string& ref, bool force) {
  if (auto* t = s.as<TensorStructInfo>()) {
    if (!force && !t->vdevice.empty()) return s;
    if (t->vdevice == ref) return s;
    return t->shape ? tensor_sinfo(*t->shape, t->dtype, ref) : tensor_sinfo(t->dtype, t->ndim, ref);
  }
  if (auto* tup = s.as<TupleStructInfo>()) {
    std::vector<StructInfo> fields;
    bool changed = false;
    for (const StructInfo& f : tup->fields) {
      fields.push_back(place_sinfo(f, ref, force));
      changed |= !fields.back().same_as(f);
    }
    return changed ? tuple_sinfo(std::move(fields)) : s;
  }
  return s;
}

class Placer : public ExprMutator {
 public:
  Placer(const IRModule& mod, size_t host, size_t device)
      : ExprMutator(mod), mod_(mod), host_(host), device_(device) {}

  using ExprMutator::visit_;

  Ref<Function> place(const Ref<Function>& f) {
    std::vector<Ref<Var>> params;
    for (const Ref<Var>& p : f->params) {
      StructInfo s = place_sinfo(p->struct_info, ref(host_), false);
      if (s.same_as(p->struct_info)) {
        params.push_back(p);
        continue;
      }
      auto np = make_var_like(p, s).as_ref<Var>();
      var_remap_[p.get()] = np;
      params.push_back(np);
    }
    StructInfo ret = place_sinfo(f->ret_struct_info, ref(host_), false);
    result_sinfo_ = ret;
    Expr body = visit_with_new_scope(f->body, params);
    return make_ref<Function>(std::move(params), std::move(body), std::move(ret), f->is_pure,
                              f->attrs, f->span);
  }

  Block visit_binding_block(const Block& block) override {
    copies_.clear();  // a copy made in one block is not visible in the next (dataflow vars)
    Block out = ExprMutator::visit_binding_block(block);
    copies_.clear();
    return out;
  }

  Expr visit_(const SeqExpr* op) override {
    // As ExprMutator's, plus the result moved where the function (or branch) returns it.
    StructInfo wanted = result_sinfo_.defined() ? result_sinfo_ : StructInfo();
    result_sinfo_ = StructInfo();
    std::vector<Block> blocks;
    for (const auto& b : op->blocks) {
      Block nb = visit_binding_block(b);
      if (!nb->bindings.empty()) blocks.push_back(nb);
    }
    builder_.begin_binding_block();
    copies_.clear();
    Expr body = visit_expr(op->body);
    body = move_result(body, wanted);
    Block tail = builder_.pop_block();
    copies_.clear();
    if (!tail->bindings.empty()) blocks.push_back(tail);
    return make_ref<SeqExpr>(std::move(blocks), std::move(body));
  }

  Expr visit_(const If* op) override {
    Expr cond = to_device(visit_expr(op->cond), host_);
    Expr then_b = visit_with_new_scope(op->then_branch);
    Expr else_b = visit_with_new_scope(op->else_branch);
    return make_ref<If>(cond, then_b, else_b, StructInfo(), op->span);
  }

  void visit_match_cast(const MatchCast* binding) override {
    // The pattern keeps the value's vdevice (an unplaced pattern would lose it).
    Expr value = visit_expr(binding->value);
    StructInfo sinfo = binding->struct_info;
    if (auto* t = value->struct_info.as<TensorStructInfo>(); t && !t->vdevice.empty())
      sinfo = place_sinfo(sinfo, t->vdevice, true);
    auto var = make_var_like(binding->var, sinfo);
    var_remap_[binding->var.get()] = var;
    builder_.emit_binding(make_ref<MatchCast>(var, value, sinfo, binding->span));
  }

  Expr visit_(const Call* op) override {
    Expr visited = ExprMutator::visit_(op);
    const Call& call = *visited.as<Call>();
    auto* callee = call.op.as<Op>();
    if (callee && callee->name == "relax.call_tir") return place_call_tir(call);
    if (callee && (callee->name == "relax.to_vdevice" || callee->name == "relax.shape_of"))
      return visited;  // where the user put it / metadata only
    if (auto* gv = call.op.as<GlobalVar>()) {
      if (auto* f = mod_.find(gv->name).as<Function>()) return place_relax_call(call, *f);
    }
    // Anything else runs on the host; a packed function over tensors (nonzero, unique, NMS: the
    // data-dependent ops the VM runs) is recorded for --stats.
    if (callee && host_ != device_ &&
        (callee->name == "relax.call_pure_packed" || callee->name == "relax.call_dps_packed") &&
        !call.args.empty()) {
      if (auto* ext = call.args[0].as<ExternFunc>()) {
        bool tensors = false;
        for (size_t i = 1; i < call.args.size(); ++i)
          tensors |= call.args[i]->struct_info.is<TensorStructInfo>() ||
                     call.args[i]->struct_info.is<TupleStructInfo>();
        if (tensors) host_ops.insert(ext->global_symbol);
      }
    }
    std::vector<Expr> args;
    for (const Expr& a : call.args) args.push_back(to_device(a, host_));
    std::vector<StructInfo> sargs;
    for (const StructInfo& s : call.sinfo_args) sargs.push_back(place_sinfo(s, ref(host_), true));
    if (callee && callee->name == "relax.call_dps_packed") {
      args[1] = tuple_to_device(call.args[1], host_);
    }
    return make_ref<Call>(call.op, std::move(args), call.attrs, std::move(sargs), StructInfo(),
                          call.span);
  }

  int64_t copies_inserted = 0;
  std::set<std::string> host_kernels;
  /// Packed functions over tensors the host runs (vm.builtin.nonzero, ...).
  std::set<std::string> host_ops;
  /// PrimFunc name -> the vdevice its calls run on.
  std::map<std::string, std::string> kernel_device;

 private:
  std::string ref(size_t index) const { return vdevice_ref(mod_.vdevices(), index); }

  size_t device_of(const Expr& e) const {
    auto* t = e->struct_info.as<TensorStructInfo>();
    if (t == nullptr || t->vdevice.empty()) return host_;
    return resolve_vdevice(mod_.vdevices(), t->vdevice, "device-placement: " + describe(e));
  }

  /// `e` (a leaf) on vdevice `dev`: itself, or an R.to_vdevice copy (once per block).
  Expr to_device(const Expr& e, size_t dev) {
    bool is_const = e.is<Constant>();
    if (!e->struct_info.is<TensorStructInfo>() || (!is_const && !e.is<VarNode>())) return e;
    if (device_of(e) == dev && !(is_const && dev != host_)) return e;
    if (is_const && dev == host_) return e;
    auto key = std::make_pair(e.get(), dev);
    if (auto it = copies_.find(key); it != copies_.end()) return it->second;
    ++copies_inserted;
    std::string hint = e.is<VarNode>() ? static_cast<const VarNode*>(e.get())->name : "const";
    Expr copy =
        builder_.emit(op::to_vdevice(e, ref(dev)), hint + "_" + mod_.vdevices()[dev].kind());
    copies_[key] = copy;
    return copy;
  }

  Expr tuple_to_device(const Expr& args, size_t dev) {
    auto* t = args.as<Tuple>();
    if (t == nullptr) return to_device(args, dev);
    std::vector<Expr> fields;
    for (const Expr& f : t->fields) fields.push_back(to_device(f, dev));
    return make_tuple(std::move(fields));
  }

  Expr place_call_tir(const Call& call) {
    auto* gv = call.args.at(0).as<GlobalVar>();
    auto* pf = gv ? mod_.find(gv->name).as<tir::PrimFunc>() : nullptr;
    RX_ICHECK(pf != nullptr) << "device-placement: call_tir of a missing PrimFunc";
    size_t dev = is_host_only(*pf) ? host_ : device_;
    if (dev == host_ && host_ != device_) host_kernels.insert(gv->name);
    kernel_device[gv->name] = ref(dev);
    std::vector<Expr> args = call.args;
    args[1] = tuple_to_device(call.args[1], dev);
    std::vector<StructInfo> out;
    for (const StructInfo& s : call.sinfo_args) out.push_back(place_sinfo(s, ref(dev), true));
    return make_ref<Call>(call.op, std::move(args), call.attrs, std::move(out), StructInfo(),
                          call.span);
  }

  Expr place_relax_call(const Call& call, const Function& callee) {
    std::vector<Expr> args;
    for (size_t i = 0; i < call.args.size(); ++i) {
      size_t dev = host_;
      if (i < callee.params.size()) dev = device_of(callee.params[i]);
      args.push_back(to_device(call.args[i], dev));
    }
    return make_ref<Call>(call.op, std::move(args), call.attrs, call.sinfo_args, StructInfo(),
                          call.span);
  }

  /// The function's (or branch's) result where `wanted` says (host when unplaced).
  Expr move_result(const Expr& body, const StructInfo& wanted) {
    if (auto* t = body->struct_info.as<TensorStructInfo>()) {
      (void)t;
      size_t dev = host_;
      if (auto* w = wanted.defined() ? wanted.as<TensorStructInfo>() : nullptr;
          w && !w->vdevice.empty())
        dev = resolve_vdevice(mod_.vdevices(), w->vdevice, "the result");
      Expr leaf = body.is<VarNode>() ? body : builder_.emit(body, "ret");
      return to_device(leaf, dev);
    }
    auto* tup = body->struct_info.as<TupleStructInfo>();
    if (tup == nullptr) return body;
    auto* wt = wanted.defined() ? wanted.as<TupleStructInfo>() : nullptr;
    bool any = false;
    for (size_t i = 0; i < tup->fields.size(); ++i) {
      auto* f = tup->fields[i].as<TensorStructInfo>();
      any |= f && !f->vdevice.empty() && device_of_ref(f->vdevice) != host_;
    }
    if (!any) return body;
    Expr leaf = body.is<VarNode>() || body.is<Tuple>() ? body : builder_.emit(body, "ret");
    std::vector<Expr> fields;
    for (size_t i = 0; i < tup->fields.size(); ++i) {
      Expr field = leaf.is<Tuple>()
                       ? leaf.as<Tuple>()->fields[i]
                       : builder_.emit(make_ref<TupleGetItem>(leaf, int(i)), "ret_field");
      StructInfo w = wt && i < wt->fields.size() ? wt->fields[i] : StructInfo();
      fields.push_back(move_result(field, w));
    }
    return builder_.normalize(make_tuple(std::move(fields)));
  }

  size_t device_of_ref(const std::string& r) const {
    return resolve_vdevice(mod_.vdevices(), r, "device-placement");
  }

  const IRModule& mod_;
  size_t host_, device_;
  StructInfo result_sinfo_;
  std::map<std::pair<const Object*, size_t>, Expr> copies_;
};

IRModule device_placement(const IRModule& mod, const PassOptions& options, PassContext&) {
  const std::string& host_opt = options.get_string("host");
  const std::string& device_opt = options.get_string("device");
  const std::vector<VDevice>& devices = mod.vdevices();
  if (devices.empty()) {
    RX_CHECK(host_opt.empty() && device_opt.empty())
        << "device-placement: the module declares no vdevices, so host=\"" << host_opt
        << "\" / device=\"" << device_opt
        << "\" name nothing; declare them with I.module_global_infos({\"vdevice\": [...]})";
    return mod;
  }
  size_t host =
      host_opt.empty() ? 0 : resolve_vdevice(devices, host_opt, "device-placement's host option");
  // VM device 0 is the host: unplaced allocations, shape computations and the VM's own
  // builtins use it.
  RX_CHECK(host == 0) << "device-placement: the host \"" << host_opt
                      << "\" must be the module's first vdevice (VM device 0 is the host); "
                      << "the module's devices: " << describe_vdevices(devices);
  size_t device = !device_opt.empty()
                      ? resolve_vdevice(devices, device_opt, "device-placement's device option")
                  : devices.size() > 1 ? (host == 0 ? 1 : 0)
                                       : host;
  Placer placer(mod, host, device);
  std::vector<std::pair<Ref<GlobalVar>, Ref<Function>>> placed;
  for (const auto& entry : mod.functions())
    if (auto f = entry.func.as_ref<Function>(); f.defined())
      placed.emplace_back(entry.gv, placer.place(f));
  IRModule out = placer.builder().get_module();
  for (auto& [gv, f] : placed) out.update(gv, f);
  for (const auto& [name, ref] : placer.kernel_device) {
    auto pf = out.lookup(name).as_ref<tir::PrimFunc>();
    out.update(name,
               make_ref<tir::PrimFunc>(pf->params, pf->body, pf->buffer_map,
                                       with_attr(pf->attrs, "relax.vdevice", ref), pf->ret_type));
  }
  out.set_attr("device_copies", placer.copies_inserted);
  if (!placer.host_ops.empty())
    out.set_attr("host_ops",
                 std::vector<std::string>(placer.host_ops.begin(), placer.host_ops.end()));
  if (!placer.host_kernels.empty())  // (an empty list would read back as a list of ints)
    out.set_attr("host_kernels",
                 std::vector<std::string>(placer.host_kernels.begin(), placer.host_kernels.end()));
  return out;
}

}  // namespace

void register_device_placement(PassRegistry& registry) {
  registry.add(
      {"device-placement",
       "Place tensors on the module's vdevices and insert copies at device boundaries",
       Granularity::kModule,
       {{"device", OptionType::kString, std::string(),
         "the vdevice running kernels (\"kind\" or \"kind:i\"); empty: the second vdevice"},
        {"host", OptionType::kString, std::string(),
         "the host vdevice; empty: the first vdevice"}}},
      ModuleTransform(device_placement));
}

}  // namespace relax::vm

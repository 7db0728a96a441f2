// fuse-ops-by-pattern{patterns, bind-constants=true, annotate-codegen=false} (module pass):
// groups the op calls of each dataflow block that match a named pattern (pattern.h) into
// private Relax functions with attributes `Composite` = the pattern's name and `Primitive` = 1,
// as TVM's FuseOpsByPattern does, for a library or vendor backend to claim.
//
// Input: high-level Relax (run before legalize-ops). `patterns` is a pattern set, `NAME =
// PATTERN` entries separated by ';' or newlines, in priority order.
//
// Per dataflow block, for each pattern in order, each binding from the last to the first is
// tried as the root of a match; the bindings the match looks through (its intermediates) and
// the root form the group. A match is kept only when it is legal:
//   - no binding of the group belongs to an earlier group;
//   - every intermediate is a DataflowVar used only by bindings of the group (its value is not
//     needed outside, so removing it is safe) — the root alone may be used anywhere;
//   - every call in the group is pure.
// Since only the root escapes, the group is convex: no path leaves it and comes back, so the
// root's position is a valid place for the whole group.
//
// Output: each group becomes a function `fused_<name>` (dots become '_') whose parameters are
// the match's inputs (variables; constants too unless bind-constants, which keeps them in the
// body), plus a shape parameter for symbolic variables the parameters do not define; its body is
// one dataflow block with the group's bindings, ending in R.output of the root's value. The
// root binding becomes a call of it and the other bindings disappear. With annotate-codegen the
// composite is wrapped in an outer function `<name>` (dots become '_') with attribute `Codegen` =
// the pattern name's prefix before the first '.', which a backend claims whole; the outer function
// is not Primitive, so when no backend claims it the default pipeline legalises and fuses the
// inner composite like any fused group (fuse-tir) and the outer one stays a plain call.
#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "fusion.h"
#include "pattern.h"
#include "relax/ir/expr_functor.h"
#include "relax/ir/struct_info_analysis.h"
#include "relax/tir/expr_functor.h"
#include "relax/transform/pass.h"

namespace relax::fusion {
namespace {

constexpr const char* kAttrComposite = "Composite";
constexpr const char* kAttrCodegen = "Codegen";

struct Options {
  std::vector<NamedPattern> patterns;
  bool bind_constants = true;
  bool annotate_codegen = false;
};

void add_unique(std::vector<Ref<tir::Var>>* out, const Ref<tir::Var>& v) {
  for (const auto& x : *out)
    if (x.same_as(v)) return;
  out->push_back(v);
}

void collect_prim_vars(const PrimExpr& e, std::vector<Ref<tir::Var>>* out) {
  struct V : tir::ExprVisitor {
    std::vector<Ref<tir::Var>>* out;
    using tir::ExprVisitor::visit_;
    void visit_(const tir::Var* op) override { add_unique(out, Ref<tir::Var>(op)); }
  } v;
  v.out = out;
  v.visit_expr(e);
}

std::string sanitize(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

class PatternFuser : public BranchKeepingMutator {
 public:
  PatternFuser(IRModule* mod, const Options& options) : mod_(mod), options_(options) {}
  using BranchKeepingMutator::visit_;

  Block visit_binding_block(const Block& block) override {
    if (!block->is_dataflow()) return ExprMutatorBase::visit_binding_block(block);
    const std::vector<Binding>& bindings = block->bindings;
    std::unordered_map<const VarNode*, size_t> index;
    std::unordered_map<const VarNode*, std::vector<size_t>> users;
    for (size_t i = 0; i < bindings.size(); ++i) {
      std::unordered_set<const VarNode*> seen;
      post_order_visit(bindings[i]->value, [&](const Expr& e) {
        auto* v = e.as<VarNode>();
        if (v && index.count(v) && seen.insert(v).second) users[v].push_back(i);
      });
      index[bindings[i]->var.get()] = i;
    }
    std::vector<int> group_of(bindings.size(), -1);
    struct Group {
      const NamedPattern* pattern;
      std::vector<size_t> members;  // binding order; the root last
      PatternMatch match;
    };
    std::vector<Group> groups;
    VarResolver resolve = [&](const VarNode* v) -> Expr {
      auto it = index.find(v);
      if (it == index.end() || group_of[it->second] >= 0) return Expr();
      const Binding& b = bindings[it->second];
      return b.is<VarBinding>() ? b->value : Expr();
    };
    for (const NamedPattern& np : options_.patterns) {
      for (size_t r = bindings.size(); r-- > 0;) {
        if (group_of[r] >= 0 || !bindings[r].is<VarBinding>()) continue;
        std::optional<PatternMatch> m = match(np.pattern, bindings[r]->var, resolve);
        if (!m) continue;
        std::vector<size_t> members;
        for (const auto& v : m->intermediates) members.push_back(index.at(v.get()));
        std::sort(members.begin(), members.end());
        if (!legal(bindings, members, r, users)) continue;
        for (size_t k : members) group_of[k] = int(groups.size());
        groups.push_back({&np, std::move(members), std::move(*m)});
      }
    }
    if (groups.empty()) return block;
    std::vector<Binding> out;
    for (size_t i = 0; i < bindings.size(); ++i) {
      if (group_of[i] < 0) {
        out.push_back(bindings[i]);
      } else if (groups[size_t(group_of[i])].members.back() == i) {
        const Group& g = groups[size_t(group_of[i])];
        out.push_back(make_group_call(bindings, g.members, g.match, g.pattern->name));
      }
    }
    return make_block(std::move(out), true);
  }

 private:
  /// The legality rules of the file comment; `root` is the last member.
  static bool legal(const std::vector<Binding>& bindings, const std::vector<size_t>& members,
                    size_t root,
                    const std::unordered_map<const VarNode*, std::vector<size_t>>& users) {
    if (members.empty() || members.back() != root) return false;
    std::unordered_set<size_t> in(members.begin(), members.end());
    for (size_t k : members) {
      auto* call = bindings[k]->value.as<Call>();
      auto* op = call ? call->op.as<Op>() : nullptr;
      if (!op || !op->info->pure) return false;
      if (k == root) continue;
      if (!bindings[k]->var.is<DataflowVar>()) return false;
      auto it = users.find(bindings[k]->var.get());
      if (it != users.end())
        for (size_t u : it->second)
          if (!in.count(u)) return false;
    }
    return true;
  }

  std::string unique_name(const std::string& base) const {
    std::string name = base;
    for (int k = 1; mod_->contains(name); ++k) name = base + "_" + std::to_string(k);
    return name;
  }

  Binding make_group_call(const std::vector<Binding>& bindings, const std::vector<size_t>& members,
                          const PatternMatch& m, const std::string& pattern_name) {
    std::unordered_set<const VarNode*> defined;
    for (size_t k : members) defined.insert(bindings[k]->var.get());
    // Parameters: the match's inputs in match order (constants only without bind-constants).
    std::vector<Ref<Var>> params;
    std::vector<Expr> args;
    std::unordered_map<const Object*, Expr> remap;
    for (const Expr& in : m.inputs) {
      if (auto* v = in.as<VarNode>(); v && defined.count(v)) continue;
      bool is_param = in.is<VarNode>() || (in.is<Constant>() && !options_.bind_constants);
      if (!is_param || remap.count(in.get())) continue;
      auto* v = in.as<VarNode>();
      Ref<Var> p =
          make_var(v ? v->name : "const_" + std::to_string(params.size()), in->struct_info);
      params.push_back(p);
      args.push_back(in);
      remap[in.get()] = p;
    }
    std::vector<Ref<tir::Var>> used_syms;
    std::vector<Binding> body;
    Ref<Var> result;
    const Binding& root = bindings[members.back()];
    for (size_t k : members) {
      const Binding& b = bindings[k];
      auto* call = b->value.as<Call>();
      std::vector<Expr> call_args;
      // An argument outside the group that no pattern input named (none today: every argument
      // is matched by some sub-pattern) would become a parameter here too.
      for (const Expr& a : call->args) {
        auto* v = a.as<VarNode>();
        bool external = (v && !defined.count(v)) || (a.is<Constant>() && !options_.bind_constants);
        if (external && !remap.count(a.get())) {
          Ref<Var> p =
              make_var(v ? v->name : "const_" + std::to_string(params.size()), a->struct_info);
          params.push_back(p);
          args.push_back(a);
          remap[a.get()] = p;
        }
        auto it = remap.find(a.get());
        call_args.push_back(it != remap.end() ? it->second : a);
        if (auto* s = a.as<ShapeExpr>())
          for (const auto& e : s->values) collect_prim_vars(e, &used_syms);
        if (auto* pv = a.as<PrimValue>()) collect_prim_vars(pv->value, &used_syms);
      }
      for (const auto& v : symbolic_vars(b->var->struct_info)) add_unique(&used_syms, v);
      Expr value = make_ref<Call>(call->op, std::move(call_args), call->attrs, call->sinfo_args,
                                  call->struct_info);
      Ref<VarNode> var = b->var;
      if (k == members.back()) {
        result = make_var(b->var->name, b->var->struct_info);
        var = result;
      }
      body.push_back(make_ref<VarBinding>(var, value));
    }
    // Symbolic variables no parameter defines come in through one shape parameter.
    std::unordered_set<const tir::Var*> defined_syms;
    for (const auto& p : params)
      for (const auto& v : defined_symbolic_vars(p->struct_info)) defined_syms.insert(v.get());
    std::vector<PrimExpr> extra;
    for (const auto& v : used_syms)
      if (!defined_syms.count(v.get())) extra.push_back(v);
    if (!extra.empty()) {
      params.push_back(make_var("shape_vars", make_ref<ShapeStructInfo>(extra)));
      args.push_back(make_shape(extra));
    }
    const StructInfo& ret = root->var->struct_info;
    auto seq = make_ref<SeqExpr>(std::vector<Block>{make_block(std::move(body), true)}, result);
    std::string base = sanitize(pattern_name);
    auto composite = make_ref<Function>(
        params, seq, ret, true,
        make_attrs({{kAttrComposite, pattern_name}, {kAttrPrimitive, int64_t(1)}}));
    Ref<GlobalVar> callee = mod_->add(unique_name("fused_" + base), composite);
    if (options_.annotate_codegen) {
      std::string codegen = pattern_name.substr(0, pattern_name.find('.'));
      std::vector<Ref<Var>> outer_params;
      std::vector<Expr> inner_args;
      for (const auto& p : params) {
        outer_params.push_back(make_var(p->name, p->struct_info));
        inner_args.push_back(outer_params.back());
      }
      Ref<Var> r = make_var(root->var->name, ret);
      Binding call = make_ref<VarBinding>(r, make_ref<Call>(callee, std::move(inner_args), Attrs(),
                                                            std::vector<StructInfo>{}, ret));
      auto outer_body = make_ref<SeqExpr>(std::vector<Block>{make_block({call}, true)}, r);
      auto outer = make_ref<Function>(std::move(outer_params), outer_body, ret, true,
                                      make_attrs({{kAttrCodegen, codegen}}));
      callee = mod_->add(unique_name(base), outer);
    }
    return make_ref<VarBinding>(root->var, make_ref<Call>(callee, std::move(args), Attrs(),
                                                          std::vector<StructInfo>{}, ret));
  }

  IRModule* mod_;
  const Options& options_;
};

IRModule fuse_ops_by_pattern(const IRModule& mod, const transform::PassOptions& options,
                             transform::PassContext&) {
  Options o;
  o.patterns = parse_pattern_set(options.get_string("patterns"));
  o.bind_constants = options.get_bool("bind-constants");
  o.annotate_codegen = options.get_bool("annotate-codegen");
  for (const NamedPattern& p : o.patterns) {
    bool prefixed = p.name.find('.') != std::string::npos && p.name.front() != '.';
    RX_CHECK(!o.annotate_codegen || prefixed)
        << "fuse-ops-by-pattern: with annotate-codegen, pattern names are <codegen>.<name> (the "
           "codegen claims the function); '"
        << p.name << "' has no codegen prefix";
  }
  if (o.patterns.empty()) return mod;
  IRModule out = mod;
  PatternFuser fuser(&out, o);
  for (const auto& e : mod.functions()) {
    auto* f = e.func.as<Function>();
    bool claimed = f && f->attrs.defined() && f->attrs->has(kAttrCodegen);
    if (!f || get_int(f->attrs, kAttrPrimitive, 0) != 0 || claimed) continue;
    Expr nf = fuser.visit_expr(e.func);
    if (!nf.same_as(e.func)) out.update(e.gv->name, nf.as_ref<Function>());
  }
  return out;
}

}  // namespace

void register_fuse_ops_by_pattern(transform::PluginRegistrar& r) {
  r.add_pass({"fuse-ops-by-pattern",
              "Group op calls matching named patterns into Composite functions",
              transform::Granularity::kModule,
              {{"patterns", transform::OptionType::kString, std::string(),
                "`NAME = PATTERN` entries separated by ';' or newlines, in priority order "
                "(docs/passes.md)"},
               {"bind-constants", transform::OptionType::kBool, true,
                "keep matched constants inside the composite function (else parameters)"},
               {"annotate-codegen", transform::OptionType::kBool, false,
                "wrap each composite in a function with attribute Codegen = the name's prefix"}}},
             transform::ModuleTransform(fuse_ops_by_pattern));
}

}  // namespace relax::fusion

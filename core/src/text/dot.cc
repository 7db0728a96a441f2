// Relax functions as Graphviz DOT (relax/text/dot.h).
#include "relax/text/dot.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "relax/ir/expr_functor.h"
#include "relax/ir/struct_info.h"
#include "relax/support/diagnostic.h"

namespace relax {

namespace {

/// `s` as the inside of a DOT string literal.
std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

/// What computes `value`, in a few words.
std::string what(const Expr& value) {
  if (auto* call = value.as<Call>()) {
    if (auto* op = call->op.as<Op>()) {
      std::string name = op->name.rfind("relax.", 0) == 0 ? op->name.substr(6) : op->name;
      if ((name == "call_tir" || name == "call_dps_packed" || name == "call_pure_packed") &&
          !call->args.empty()) {
        if (auto* gv = call->args[0].as<GlobalVar>()) return name + " " + gv->name;
        if (auto* ext = call->args[0].as<ExternFunc>()) return name + " " + ext->global_symbol;
      }
      return name;
    }
    if (auto* gv = call->op.as<GlobalVar>()) return "call " + gv->name;
    if (auto* ext = call->op.as<ExternFunc>()) return "call " + ext->global_symbol;
    return "call";
  }
  if (value.is<If>()) return "if";
  if (value.is<Tuple>()) return "tuple";
  if (auto* g = value.as<TupleGetItem>()) return "get item " + std::to_string(g->index);
  if (value.is<Constant>()) return "constant";
  if (value.is<VarNode>()) return "alias";
  return describe(value);
}

class DotWriter {
 public:
  explicit DotWriter(std::ostringstream& os) : os_(os) {}

  void function(const std::string& name, const Function& f, int index) {
    prefix_ = "f" + std::to_string(index) + "_";
    ids_.clear();
    os_ << "  subgraph cluster_" << index << " {\n    label=\"" << escape(name) << "\";\n";
    for (const Ref<Var>& p : f.params) {
      std::string id = fresh(p.get());
      os_ << "    " << id << " [shape=ellipse, label=\"" << escape(p->name) << "\\n"
          << escape(to_string(p->struct_info)) << "\"];\n";
    }
    Expr result = f.body;
    if (auto* seq = f.body.as<SeqExpr>()) {
      for (const Block& b : seq->blocks)
        for (const Binding& binding : b->bindings) bind(binding);
      result = seq->body;
    }
    std::string ret = prefix_ + "return";
    os_ << "    " << ret << " [shape=doublecircle, label=\"return\"];\n";
    edges_into(result, ret);
    os_ << "  }\n";
  }

 private:
  std::string fresh(const void* key) {
    std::string id = prefix_ + "n" + std::to_string(next_++);
    ids_[key] = id;
    return id;
  }

  void bind(const Binding& b) {
    std::string how = b.is<MatchCast>() ? "match_cast" : what(b->value);
    std::string label = b->var->name + " = " + how + "\n" + to_string(b->var->struct_info);
    std::string id = prefix_ + "n" + std::to_string(next_++);
    os_ << "    " << id << " [shape=box, label=\"" << escape(label) << "\"];\n";
    edges_into(b->value, id);
    ids_[b->var.get()] = id;
  }

  /// An edge from every known variable and every constant `value` uses to node `to`.
  void edges_into(const Expr& value, const std::string& to) {
    std::vector<std::string> from;
    post_order_visit(value, [&](const Expr& e) {
      if (auto* c = e.as<Constant>()) {
        std::string id = prefix_ + "n" + std::to_string(next_++);
        os_ << "    " << id << " [shape=note, label=\"const\\n"
            << escape(to_string(c->struct_info)) << "\"];\n";
        from.push_back(id);
        return;
      }
      auto it = ids_.find(e.get());
      if (it != ids_.end()) from.push_back(it->second);
    });
    std::vector<std::string> seen;
    for (const std::string& f : from) {
      if (std::find(seen.begin(), seen.end(), f) != seen.end()) continue;
      seen.push_back(f);
      os_ << "    " << f << " -> " << to << ";\n";
    }
  }

  std::ostringstream& os_;
  std::string prefix_;
  std::unordered_map<const void*, std::string> ids_;
  int next_ = 0;
};

}  // namespace

std::string module_to_dot(const IRModule& mod, const std::string& function) {
  std::ostringstream os;
  os << "digraph relax {\n  rankdir=TB;\n  node [fontname=\"monospace\", fontsize=10];\n";
  DotWriter writer(os);
  std::vector<std::string> names;
  int index = 0;
  bool found = false;
  for (const IRModule::Entry& e : mod.functions()) {
    auto f = e.func.as_ref<Function>();
    if (!f.defined()) continue;
    names.push_back(e.gv->name);
    if (!function.empty() && e.gv->name != function) continue;
    found = true;
    writer.function(e.gv->name, *f, index++);
  }
  RX_CHECK(function.empty() || found)
      << "graph: the module has no Relax function '" << function << "'; its Relax functions: "
      << (names.empty() ? std::string("none") : [&] {
           std::string s;
           for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
           return s;
         }());
  os << "}\n";
  return os.str();
}

}  // namespace relax

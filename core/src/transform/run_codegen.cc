// The BYOC codegen table and the pass run-codegen (relax/transform/codegen.h).
//
// run-codegen (module pass; compile() puts it before legalize-ops when a pipeline lacks it):
// the functions with attribute `Codegen` = a registered codegen's name are given to that codegen
// (one call per codegen, functions in module order); every call of one of them becomes
// `R.call_dps_packed(symbol, args, ret)`; the claimed functions, and the `Composite` functions
// only they called, leave the module. The module attribute `offloaded_functions` records
// "function -> codegen:symbol" (`--stats` and `inspect` readers), `external_libraries` the
// libraries the codegens returned. Functions whose codegen is not registered stay as they are.
#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "relax/ir/expr_functor.h"
#include "relax/op/op.h"
#include "relax/transform/codegen.h"
#include "relax/transform/core_passes.h"

namespace relax::transform {

namespace {

constexpr const char* kAttrCodegen = "Codegen";
constexpr const char* kAttrComposite = "Composite";

struct CodegenTable {
  std::mutex mutex;
  std::map<std::string, Codegen> codegens;
};

CodegenTable& table() {
  static auto* t = new CodegenTable();  // never destroyed: plugin code stays loaded
  return *t;
}

std::string to_hex(const std::vector<uint8_t>& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::vector<uint8_t> from_hex(const std::string& hex) {
  auto nibble = [](char c) -> uint8_t { return c <= '9' ? c - '0' : c - 'a' + 10; };
  RX_ICHECK(hex.size() % 2 == 0) << "external library bytes: odd hex length";
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = uint8_t(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  return out;
}

/// Replaces calls of claimed functions by call_dps_packed to their symbols.
class OffloadRewriter : public ExprMutator {
 public:
  OffloadRewriter(IRModule mod, const std::map<std::string, std::string>& symbols)
      : ExprMutator(std::move(mod)), symbols_(symbols) {}
  using ExprMutator::visit_;

  Expr visit_(const Call* op) override {
    Expr visited = ExprMutator::visit_(op);
    auto* call = visited.as<Call>();
    auto* gv = call ? call->op.as<GlobalVar>() : nullptr;
    if (!gv) return visited;
    auto it = symbols_.find(gv->name);
    if (it == symbols_.end()) return visited;
    RX_CHECK(call->struct_info.as<TensorStructInfo>())
        << "run-codegen: the offloaded function '" << gv->name
        << "' must return one tensor (call_dps_packed writes one output)";
    return op::call_dps_packed(it->second, call->args, {call->struct_info});
  }

 private:
  const std::map<std::string, std::string>& symbols_;
};

/// Names of the functions `expr` calls through GlobalVars.
std::set<std::string> callees(const Expr& expr) {
  struct V : ExprVisitor {
    std::set<std::string> out;
    using ExprVisitor::visit_;
    void visit_(const GlobalVar* op) override { out.insert(op->name); }
  } v;
  v.visit_expr(expr);
  return v.out;
}

IRModule run_codegen(const IRModule& mod, const PassOptions&, PassContext&) {
  // Claimed functions by codegen, in module order.
  std::map<std::string, std::vector<ClaimedFunction>> claimed;
  for (const auto& e : mod.functions()) {
    auto func = e.func.as_ref<Function>();
    if (!func.defined() || !func->attrs.defined() || !func->attrs->has(kAttrCodegen)) continue;
    std::string name = get_string(func->attrs, kAttrCodegen, "");
    if (find_codegen(name)) claimed[name].push_back({e.gv->name, func});
  }
  if (claimed.empty()) return mod;

  std::map<std::string, std::string> symbols;
  std::vector<std::string> offloaded, libraries;
  if (const AttrValue* v = mod.attrs().defined() ? mod.attrs()->find(kExternalLibrariesAttr) : nullptr)
    libraries = std::get<std::vector<std::string>>(*v);
  for (const auto& [name, funcs] : claimed) {
    std::optional<Codegen> codegen = find_codegen(name);
    CodegenOutput out = codegen->run(funcs, mod);
    RX_CHECK(out.symbols.size() == funcs.size())
        << "codegen '" << name << "' returned " << out.symbols.size() << " symbols for "
        << funcs.size() << " functions (one per function expected)";
    for (size_t i = 0; i < funcs.size(); ++i) {
      RX_CHECK(!out.symbols[i].empty())
          << "codegen '" << name << "' returned no symbol for function '" << funcs[i].name << "'";
      symbols[funcs[i].name] = out.symbols[i];
      offloaded.push_back(funcs[i].name + " -> " + name + ":" + out.symbols[i]);
    }
    if (!out.library.empty() || !out.library_format.empty()) {
      RX_CHECK(!out.library_format.empty())
          << "codegen '" << name << "' returned library bytes without a format";
      libraries.push_back(out.library_format);
      libraries.push_back(to_hex(out.library));
    }
  }

  IRModule result = mod;
  OffloadRewriter rewriter(mod, symbols);
  std::set<std::string> still_called;
  for (const auto& e : mod.functions()) {
    auto func = e.func.as_ref<Function>();
    if (!func.defined() || symbols.count(e.gv->name)) continue;
    Expr out = rewriter.visit_expr(func);
    if (!out.same_as(func)) result.update(e.gv->name, out.as_ref<Function>());
    for (const std::string& c : callees(out)) still_called.insert(c);
  }
  // The claimed functions go, and the composites nothing else calls.
  std::set<std::string> composites;
  for (const auto& e : mod.functions()) {
    if (!symbols.count(e.gv->name)) continue;
    for (const std::string& c : callees(e.func)) composites.insert(c);
    result.remove(e.gv->name);
  }
  for (const std::string& c : composites) {
    auto f = result.find(c).as_ref<Function>();
    if (f.defined() && f->attrs.defined() && f->attrs->has(kAttrComposite) && !still_called.count(c))
      result.remove(c);
  }
  if (const AttrValue* v = mod.attrs().defined() ? mod.attrs()->find(kOffloadedAttr) : nullptr) {
    auto before = std::get<std::vector<std::string>>(*v);
    offloaded.insert(offloaded.begin(), before.begin(), before.end());
  }
  result.set_attr(kOffloadedAttr, offloaded);
  result.set_attr(kExternalLibrariesAttr, libraries);
  return result;
}

}  // namespace

void register_codegen(Codegen codegen) {
  RX_CHECK(!codegen.name.empty()) << "register_codegen: empty codegen name";
  RX_CHECK(codegen.run != nullptr) << "register_codegen: codegen '" << codegen.name
                                   << "' has no function";
  CodegenTable& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.codegens.find(codegen.name);
  if (it != t.codegens.end() && it->second.plugin != codegen.plugin) {
    RX_THROW() << "codegen '" << codegen.name << "' is already registered by "
               << (it->second.plugin.empty() ? "the core" : "plugin '" + it->second.plugin + "'");
  }
  std::string name = codegen.name;
  t.codegens[name] = std::move(codegen);
}

bool remove_codegen(const std::string& name) {
  CodegenTable& t = table();
  std::lock_guard lock(t.mutex);
  return t.codegens.erase(name) != 0;
}

std::optional<Codegen> find_codegen(const std::string& name) {
  CodegenTable& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.codegens.find(name);
  if (it == t.codegens.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> list_codegens() {
  CodegenTable& t = table();
  std::lock_guard lock(t.mutex);
  std::vector<std::string> out;
  for (const auto& [name, c] : t.codegens) out.push_back(name);
  return out;
}

std::vector<std::pair<std::string, std::vector<uint8_t>>> external_libraries(const IRModule& mod) {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
  const AttrValue* v = mod.attrs().defined() ? mod.attrs()->find(kExternalLibrariesAttr) : nullptr;
  if (!v) return out;
  const auto& items = std::get<std::vector<std::string>>(*v);
  for (size_t i = 0; i + 1 < items.size(); i += 2) out.emplace_back(items[i], from_hex(items[i + 1]));
  return out;
}

void register_run_codegen(PassRegistry& registry) {
  registry.add({"run-codegen",
                "Offload the functions a registered BYOC codegen claims (attribute Codegen) to "
                "its library: calls become call_dps_packed",
                Granularity::kModule,
                {}},
               ModuleTransform(run_codegen));
}

}  // namespace relax::transform

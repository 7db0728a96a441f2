// The Relax printer's special call spellings (printer_internal.h: print_special_call): calls
// whose generic op form (`R.op(args..., attr=v)`) is not what TVMScript reads — the DPS and
// packed bridges, R.call_py_func, R.print(..., format=) and R.assert_op(cond, [...], format=),
// R.call_tir_inplace(..., inplace_indices=, out_sinfo=). The parser (parser_relax_call.cc,
// parser_script_ops.cc) reads each back to the same Call.
#include "printer_internal.h"
#include "relax/text/parser.h"

namespace relax::script {

namespace {

std::string join(const std::vector<std::string>& xs) {
  std::string s;
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + xs[i];
  return s;
}

const std::string* string_arg(const Call* c, size_t i) {
  auto* s = i < c->args.size() ? c->args[i].as<StringImm>() : nullptr;
  return s ? &s->value : nullptr;
}

}  // namespace

std::optional<std::string> print_special_call(const Call* c, const CallPrintHooks& h) {
  auto* op = c->op.as<Op>();
  if (!op) return std::nullopt;
  const std::string& n = op->name;
  std::vector<std::string> args;
  if ((n == "relax.call_tir" || n == "relax.call_tir_inplace") && c->args.size() >= 2) {
    // A PrimFunc this module does not hold is named by string.
    auto* gv = c->args[0].as<GlobalVar>();
    args.push_back(gv && !h.has_global(gv->name) ? quote(gv->name) : h.expr(c->args[0]));
    args.push_back(h.expr(c->args[1]));
    if (n == "relax.call_tir_inplace" && c->attrs.defined())
      if (const AttrValue* idx = c->attrs->find("inplace_indices"))
        args.push_back("inplace_indices=" + print_attr_value(*idx, h.prims));
    if (!c->sinfo_args.empty()) args.push_back("out_sinfo=" + h.out_sinfo(c->sinfo_args[0]));
    if (c->args.size() >= 3) args.push_back("tir_vars=" + h.expr(c->args[2]));
    return "R." + n.substr(6) + "(" + join(args) + ")";
  }
  if (n == "relax.call_dps_packed" && c->args.size() == 2 && c->args[0].is<ExternFunc>()) {
    args.push_back(quote(c->args[0].as<ExternFunc>()->global_symbol));
    args.push_back(h.expr(c->args[1]));
    if (!c->sinfo_args.empty()) args.push_back("out_sinfo=" + h.out_sinfo(c->sinfo_args[0]));
    return "R.call_dps_packed(" + join(args) + ")";
  }
  if (n == "relax.call_pure_packed" && !c->args.empty() && c->args[0].is<ExternFunc>() &&
      c->args[0].as<ExternFunc>()->global_symbol.starts_with(kPyFuncPrefix) &&
      c->sinfo_args.size() == 1) {
    // R.call_py_func (parser.h): the name without the prefix, the arguments as a tuple.
    std::vector<std::string> rest;
    for (size_t i = 1; i < c->args.size(); ++i) rest.push_back(h.expr(c->args[i]));
    std::string tuple = "(" + join(rest) + (rest.size() == 1 ? ",)" : ")");
    return "R.call_py_func(" +
           quote(c->args[0].as<ExternFunc>()->global_symbol.substr(
               std::string_view(kPyFuncPrefix).size())) +
           ", " + tuple + ", out_sinfo=" + h.out_sinfo(c->sinfo_args[0]) + ")";
  }
  if ((n == "relax.call_packed" || n == "relax.call_pure_packed") && !c->args.empty() &&
      c->args[0].is<ExternFunc>()) {
    args.push_back(quote(c->args[0].as<ExternFunc>()->global_symbol));
    for (size_t i = 1; i < c->args.size(); ++i) args.push_back(h.expr(c->args[i]));
    if (!c->sinfo_args.empty()) args.push_back("sinfo_args=" + h.sinfo_list(c->sinfo_args));
    return "R." + n.substr(6) + "(" + join(args) + ")";
  }
  if (n == "relax.print" && string_arg(c, 0)) {
    for (size_t i = 1; i < c->args.size(); ++i) args.push_back(h.expr(c->args[i]));
    args.push_back("format=" + quote(*string_arg(c, 0)));
    return "R.print(" + join(args) + ")";
  }
  if (n == "relax.assert_op" && string_arg(c, 1)) {
    std::vector<std::string> vals;
    for (size_t i = 2; i < c->args.size(); ++i) vals.push_back(h.expr(c->args[i]));
    return "R.assert_op(" + h.expr(c->args[0]) + ", [" + join(vals) +
           "], format=" + quote(*string_arg(c, 1)) + ")";
  }
  return std::nullopt;
}

}  // namespace relax::script

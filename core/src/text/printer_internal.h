// The PrimExpr printer shared by the Relax printer (shapes, prim values) and the TIR printer.
// Internal to core/src/ir.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "relax/ir/prim_func.h"
#include "relax/tir/attrs.h"
#include "script_common.h"

namespace relax::script {

class PrimPrinter {
 public:
  explicit PrimPrinter(NameTable* names) : names_(names) {}
  virtual ~PrimPrinter() = default;
  /// `e` in script form; an integer literal whose dtype is `hint` prints without T.<dtype>().
  std::string print(const tir::PrimExpr& e, DataType hint = kDefaultInt) {
    return print_prec(e, hint, 0);
  }
  /// A typed literal: T.float32(0.5), T.int32(3).
  static std::string typed_literal(const tir::PrimExpr& e);
  /// The name of a variable (its name table entry, else its own name).
  std::string var_name(const tir::Var* v);

 protected:
  /// The name a buffer prints under; TIR printer overrides.
  virtual std::string buffer_name(const tir::Buffer* b) { return b->name; }
  std::string print_prec(const tir::PrimExpr& e, DataType hint, int min_prec);
  NameTable* names_;
};

}  // namespace relax::script

namespace relax::script {

/// Lines of text with indentation (four spaces per level).
struct Writer {
  std::string out;
  void line(int indent, const std::string& text) {
    out.append(size_t(indent) * 4, ' ');
    out += text;
    out += '\n';
  }
};

/// Module attributes without kPyFuncsAttr (relax/text/parser.h), and the @I.py_func sources
/// it held (null when none). py_func.cc.
std::pair<Attrs, const std::vector<std::string>*> split_py_funcs(const Attrs& attrs);
/// Writes the sources as methods of the module class (indented one level, a blank line
/// between them); returns whether nothing was written.
bool write_py_funcs(const std::vector<std::string>& sources, Writer* w);

/// Prints `func` as `@T.prim_func ... def name(...):` at `indent`.
void print_prim_func_into(const Ref<tir::PrimFunc>& func, const std::string& name, int indent,
                          Writer* w);
/// Prints an attribute value as a Python literal ("float32" for a dtype, [1, 2] for a list).
std::string print_attr_value(const AttrValue& v, PrimPrinter* prims);
/// `{"key": value, ...}`.
std::string print_attr_dict(const Attrs& attrs, PrimPrinter* prims);

/// What print_special_call needs of the Relax printer.
struct CallPrintHooks {
  std::function<std::string(const Expr&)> expr;
  std::function<std::string(const std::vector<StructInfo>&)> sinfo_list;
  /// A DPS call's out_sinfo: one struct info, or a list for a tuple of two or more.
  std::function<std::string(const StructInfo&)> out_sinfo;
  /// Whether the module being printed holds a function of this name.
  std::function<bool(const std::string&)> has_global;
  PrimPrinter* prims;
};
/// The TVMScript spelling of a call that does not print as a generic op call (call_tir,
/// call_packed, R.print, R.assert_op, ...; printer_relax_calls.cc); nullopt for the others.
std::optional<std::string> print_special_call(const Call* c, const CallPrintHooks& hooks);

}  // namespace relax::script

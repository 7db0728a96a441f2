// IRModule, parsing, printing and structural equality for Python.
#include <pybind11/stl.h>

#include "bindings.h"
#include "relax/ir/structural_equal.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"

namespace relax::python {

void bind_ir(py::module_& m) {
  py::class_<IRModule>(m, "IRModule")
      .def(py::init<>())
      .def("script", [](const IRModule& mod, bool show_constants) {
             PrintOptions o;
             o.show_constants = show_constants;
             return print_module(mod, "Module", o);
           }, py::arg("show_constants") = true,
           "The module as text (TVMScript spelling); parse() reads it back")
      .def("__str__", [](const IRModule& mod) { return print_module(mod); })
      .def("__repr__", [](const IRModule& mod) {
             return "<relax.IRModule with " + std::to_string(mod.size()) + " functions>";
           })
      .def("__len__", &IRModule::size)
      .def("__contains__", [](const IRModule& mod, const std::string& name) {
             return mod.contains(name);
           })
      .def("function_names", [](const IRModule& mod) {
             std::vector<std::string> names;
             for (const IRModule::Entry& e : mod.functions()) names.push_back(e.gv->name);
             return names;
           }, "The names of the module's functions, in module order")
      .def("remove", &IRModule::remove, py::arg("name"))
      .def("copy", [](const IRModule& mod) { return IRModule(mod); })
      .def_property_readonly("py_funcs", [](const IRModule& mod) {
             const AttrValue* v = mod.attrs() ? mod.attrs()->find(kPyFuncsAttr) : nullptr;
             if (v && std::holds_alternative<std::vector<std::string>>(*v))
               return std::get<std::vector<std::string>>(*v);
             return std::vector<std::string>{};
           }, "The sources of the module's @I.py_func functions (text/parser.h)")
      .def("with_py_funcs", [](const IRModule& mod, std::vector<std::string> sources) {
             IRModule out = mod;
             out.set_attr(kPyFuncsAttr, std::move(sources));
             return out;
           }, py::arg("sources"), "This module with its @I.py_func sources replaced");

  m.def("parse", [](const std::string& text, const std::string& file_name) {
          return parse_module(text, file_name);
        }, py::arg("text"), py::arg("file_name") = "<input>");
  m.def("parse_file", &parse_module_file, py::arg("path"));
  m.def("print_module", [](const IRModule& mod, bool show_constants) {
          PrintOptions o;
          o.show_constants = show_constants;
          return print_module(mod, "Module", o);
        }, py::arg("mod"), py::arg("show_constants") = true);
  m.def("structural_equal", [](const IRModule& a, const IRModule& b) {
          return structural_equal(a, b);
        }, py::arg("a"), py::arg("b"));
}

}  // namespace relax::python

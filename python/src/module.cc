// relax._relax: the module definition. relax::Error becomes relax.RelaxError (an Exception
// subclass) with the same message; relax::InternalError becomes relax.InternalError.
#include "bindings.h"
#include "relax/support/diagnostic.h"

namespace relax::python {

Compiler& session() {
  static Compiler* compiler = new Compiler();  // lives as long as the process: plugins stay
  return *compiler;
}

std::string python_error_text(const py::error_already_set& e) {
  py::gil_scoped_acquire gil;
  std::string type = py::str(e.type().attr("__name__"));
  std::string message = py::str(e.value());
  return message.empty() ? type : type + ": " + message;
}

}  // namespace relax::python

PYBIND11_MODULE(_relax, m) {
  namespace py = pybind11;
  m.doc() = "Relax ML compiler: bindings of the compile API and the runtime";
  static py::exception<relax::Error> error(m, "RelaxError", PyExc_Exception);
  static py::exception<relax::InternalError> internal(m, "InternalError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const relax::Error& e) {
      error(e.what());
    } catch (const relax::InternalError& e) {
      internal(e.what());
    }
  });
  relax::python::bind_ir(m);
  relax::python::bind_compile(m);
  relax::python::bind_runtime(m);
  relax::python::bind_nodes(m);
  relax::python::bind_passes(m);
}

// The pybind11 extension relax._relax: what its binding files share. Each bind_* function adds
// one area's classes and functions to the module (module.cc calls them in order); the Python
// package (python/relax) wraps them into the user-facing API (docs/python.md).
#pragma once

#include <pybind11/pybind11.h>

#include "relax/runtime/value.h"
#include "relax/target/compile.h"

namespace relax::python {

namespace py = pybind11;

/// A Python-visible executable (Ref<> is not a pybind11 holder): relax._relax.Executable.
struct PyExecutable {
  Ref<runtime::Executable> exec;
};

/// The process's compiler session: the pass registry (core passes, plugins' and the passes
/// registered from Python) and the plugin manager, created on first use.
Compiler& session();

/// A Python value as a runtime Value: None, bool, int, float, str, relax NDArray, any object
/// with `__dlpack__` (NumPy arrays, torch tensors: wrapped without a copy), lists and tuples
/// (a runtime tuple), callables (a PackedFunc calling back into Python). Throws relax::Error
/// naming `what` (a parameter) for anything else.
runtime::Value to_value(py::handle obj, const std::string& what);
/// A runtime Value as a Python value: tensors as relax NDArray, tuples as tuples, shapes as
/// tuples of ints, functions as callables.
py::object from_value(const runtime::Value& v);

/// "ValueError: message" for a Python exception caught in C++ (no traceback).
std::string python_error_text(const py::error_already_set& e);

void bind_ir(py::module_& m);       // ir_bindings.cc: IRModule, parse, print, equality
void bind_compile(py::module_& m);  // compile_bindings.cc: pipelines, plugins, targets, compile
void bind_runtime(py::module_& m);  // runtime_bindings.cc: NDArray, DLPack, Executable, VM
void bind_nodes(py::module_& m);    // node_bindings.cc: read-only IR nodes for visitors
void bind_passes(py::module_& m);   // pass_bindings.cc: passes written in Python

}  // namespace relax::python

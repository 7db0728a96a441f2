// The runtime for Python: NDArray with DLPack both ways (zero-copy), Executable (save/load),
// the VM, and PackedFunc calls in both directions (Python calling runtime functions, the VM
// calling Python callables).
//
// DLPack: NDArray.from_dlpack(obj) takes obj.__dlpack__()'s capsule, marks it used and wraps
// the DLManagedTensor (its deleter runs with the last NDArray handle); NDArray.__dlpack__()
// exports a managed tensor that keeps the NDArray alive, so numpy.from_dlpack and
// torch.utils.dlpack.from_dlpack view the same memory.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "common/devices.h"
#include "relax/runtime/packed_func.h"
#include "relax/runtime/registry.h"
#include "relax/runtime/vm.h"
#include "relax/support/diagnostic.h"
#include "relax/target/build.h"
#include "relax/target/devices.h"

namespace relax::python {

namespace {

using runtime::NDArray;
using runtime::Value;
using runtime::ValueKind;

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

/// The capsule of a DLManagedTensor; its destructor frees the tensor unless a consumer took it.
py::capsule make_capsule(DLManagedTensor* managed) {
  return py::capsule(managed, kCapsuleName, [](PyObject* cap) {
    if (!PyCapsule_IsValid(cap, kCapsuleName)) return;  // consumed ("used_dltensor")
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, kCapsuleName));
    if (t && t->deleter) t->deleter(t);
  });
}

/// Takes the tensor of a DLPack capsule (an object with __dlpack__, or a capsule itself).
NDArray from_dlpack(py::handle obj, const std::string& what) {
  py::object cap = py::reinterpret_borrow<py::object>(obj);
  if (!PyCapsule_CheckExact(obj.ptr())) {
    try {
      cap = obj.attr("__dlpack__")();
    } catch (py::error_already_set& e) {
      RX_THROW() << what << ": cannot export it through DLPack: " << python_error_text(e);
    }
  }
  RX_CHECK(PyCapsule_IsValid(cap.ptr(), kCapsuleName))
      << what << ": expected a DLPack capsule named 'dltensor' (an unused one)";
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), kCapsuleName));
  PyCapsule_SetName(cap.ptr(), kUsedCapsuleName);
  return NDArray::from_dlpack(managed);
}

std::string type_name(py::handle obj) {
  return py::str(py::type::of(obj).attr("__name__")).cast<std::string>();
}

/// A Python callable as a PackedFunc: the GIL is taken for the call, arguments and the result
/// converted, and a Python exception becomes a relax::Error naming the function.
runtime::PackedFunc wrap_callable(py::handle fn, std::string name) {
  auto held = std::make_shared<py::object>(py::reinterpret_borrow<py::object>(fn));
  // The last reference may go on a thread without the GIL: take it to drop the object.
  std::shared_ptr<py::object> guarded(new py::object(std::move(*held)), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
  return runtime::PackedFunc(name, [guarded, name](runtime::Args args) -> Value {
    py::gil_scoped_acquire gil;
    try {
      py::tuple py_args(args.size());
      for (size_t i = 0; i < args.size(); ++i) py_args[i] = from_value(args[i]);
      py::object result = (*guarded)(*py_args);
      return to_value(result, "the result of Python function '" + name + "'");
    } catch (py::error_already_set& e) {
      RX_THROW() << "Python function '" << name << "' raised " << python_error_text(e);
    }
    return Value();
  });
}

/// DLDevice from ("cpu", 0) style pairs given by the Python layer.
DLDevice to_device(const std::pair<int, int>& d) { return DLDevice{DLDeviceType(d.first), d.second}; }

}  // namespace

Value to_value(py::handle obj, const std::string& what) {
  if (obj.is_none()) return Value();
  if (py::isinstance<py::bool_>(obj)) return Value(obj.cast<bool>());
  if (py::isinstance<py::int_>(obj)) return Value(obj.cast<int64_t>());
  if (py::isinstance<py::float_>(obj)) return Value(obj.cast<double>());
  if (py::isinstance<py::str>(obj)) return Value(obj.cast<std::string>());
  if (py::isinstance<NDArray>(obj)) return Value(obj.cast<NDArray>());
  if (py::hasattr(obj, "__dlpack__") || PyCapsule_CheckExact(obj.ptr()))
    return Value(from_dlpack(obj, what));
  if (py::isinstance<runtime::PackedFunc>(obj)) return Value(obj.cast<runtime::PackedFunc>());
  if (py::isinstance<py::tuple>(obj) || py::isinstance<py::list>(obj)) {
    std::vector<Value> fields;
    size_t i = 0;
    for (py::handle item : obj) fields.push_back(to_value(item, what + "[" + std::to_string(i++) + "]"));
    return runtime::Tuple(std::move(fields));
  }
  if (py::hasattr(obj, "__index__"))
    return Value(py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr())).cast<int64_t>());
  if (py::hasattr(obj, "__float__")) return Value(obj.cast<double>());  // NumPy float scalars
  if (PyCallable_Check(obj.ptr())) {
    std::string name = py::hasattr(obj, "__name__") ? py::str(obj.attr("__name__")).cast<std::string>()
                                                   : type_name(obj);
    return Value(wrap_callable(obj, name));
  }
  RX_THROW() << what << ": cannot pass a Python " << type_name(obj)
             << " to Relax; expected a tensor (NumPy array, torch tensor, relax.NDArray), a "
                "number, a string, a tuple or a callable";
  return Value();
}

py::object from_value(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return py::none();
    case ValueKind::kInt: return py::int_(v.as_int());
    case ValueKind::kFloat: return py::float_(v.as_float());
    case ValueKind::kBool: return py::bool_(v.as_bool());
    case ValueKind::kString: return py::str(v.as_string());
    case ValueKind::kTensor: return py::cast(v.as_tensor());
    case ValueKind::kShape: return py::cast(v.as_shape().dims());
    case ValueKind::kTuple: {
      runtime::Tuple t = v.as_tuple();
      py::tuple out(t.size());
      for (size_t i = 0; i < t.size(); ++i) out[i] = from_value(t[i]);
      return out;
    }
    case ValueKind::kFunction: return py::cast(v.as_function());
    case ValueKind::kObject: break;
  }
  RX_THROW() << "cannot return a " << v.describe() << " to Python";
  return py::none();
}

void bind_runtime(py::module_& m) {
  py::class_<NDArray>(m, "NDArray")
      .def_static("from_dlpack", [](py::handle obj) { return from_dlpack(obj, "from_dlpack"); },
                  py::arg("obj"), "Wraps obj's memory (anything with __dlpack__) without a copy")
      .def_static("empty", [](const std::vector<int64_t>& shape, const std::string& dtype) {
                    auto t = DataType::parse(dtype);
                    RX_CHECK(t) << "NDArray.empty: unknown dtype '" << dtype << "'";
                    return NDArray::empty(shape, *t);
                  }, py::arg("shape"), py::arg("dtype") = "float32")
      .def("__dlpack__", [](const NDArray& a, py::object /*stream*/) {
             return make_capsule(a.to_dlpack());
           }, py::arg("stream") = py::none())
      .def("__dlpack_device__", [](const NDArray& a) {
             return py::make_tuple(int(a.device().device_type), a.device().device_id);
           })
      .def_property_readonly("shape", [](const NDArray& a) { return py::tuple(py::cast(a.shape())); })
      .def_property_readonly("dtype", [](const NDArray& a) { return a.dtype().to_string(); })
      .def_property_readonly("device", [](const NDArray& a) {
             return py::make_tuple(int(a.device().device_type), a.device().device_id);
           })
      .def_property_readonly("data_ptr", [](const NDArray& a) {
             return reinterpret_cast<uintptr_t>(a.data());
           }, "The address of the first element (to show that views share memory)")
      .def("copy", &NDArray::copy)
      .def("copy_to", [](const NDArray& a, std::pair<int, int> d) { return a.copy_to(to_device(d)); })
      .def("same_as", &NDArray::same_as)
      .def("__repr__", [](const NDArray& a) {
             return "<relax.NDArray " + runtime::shape_to_string(a.shape()) + " " +
                    a.dtype().to_string() + ">";
           });

  py::class_<runtime::PackedFunc>(m, "PackedFunc")
      .def_property_readonly("name", &runtime::PackedFunc::name)
      .def("__call__", [](const runtime::PackedFunc& f, py::args args) {
             std::vector<Value> values;
             for (size_t i = 0; i < args.size(); ++i)
               values.push_back(to_value(args[i], f.name() + " argument " + std::to_string(i)));
             Value result;
             {
               py::gil_scoped_release release;
               result = f(runtime::Args(values));
               values.clear();  // tensors from Python drop here, without the GIL held
             }
             return from_value(result);
           });
  m.def("get_global_func", [](const std::string& name) { return runtime::Registry::get(name); },
        py::arg("name"), "The global packed function `name` (RelaxError when absent)");
  m.def("register_func", [](const std::string& name, py::function fn, bool override_existing) {
          // Messages name the Python function (a py_func's own name), else the registered name.
          std::string shown = py::hasattr(fn, "__name__") ? py::str(fn.attr("__name__")).cast<std::string>() : "";
          if (shown.empty() || shown == "<lambda>") shown = name;
          runtime::Registry::register_func(name, wrap_callable(fn, shown), override_existing);
        }, py::arg("name"), py::arg("fn"), py::arg("override") = false,
        "Registers a Python callable as global packed function `name` (call_dps_packed finds it)");
  m.def("remove_global_func", [](const std::string& name) { return runtime::Registry::remove(name); });
  m.def("wrap_callable", [](py::function fn, const std::string& name) { return wrap_callable(fn, name); });

  py::class_<PyExecutable>(m, "Executable")
      .def_static("load", [](const std::string& path) {
                    return PyExecutable{runtime::Executable::load_from_file(path)};
                  }, py::arg("path"))
      .def_static("from_bytes", [](py::bytes b) {
                    std::string s = b;
                    return PyExecutable{runtime::Executable::load(
                        std::vector<uint8_t>(s.begin(), s.end()))};
                  })
      .def("save", [](const PyExecutable& e, const std::string& path) { e.exec->save_to_file(path); },
           py::arg("path"))
      .def("as_bytes", [](const PyExecutable& e) {
             std::vector<uint8_t> b = e.exec->save();
             return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
           })
      .def("functions", [](const PyExecutable& e) {
             py::list out;
             for (const runtime::FunctionInfo& f : e.exec->functions) {
               py::dict d;
               d["name"] = f.name;
               d["bytecode"] = f.kind == runtime::FunctionKind::kBytecode;
               d["params"] = f.param_names;
               d["param_types"] = f.param_types;
               out.append(d);
             }
             return out;
           }, "Every function-table entry: name, bytecode or packed, parameters and their types")
      .def("devices", [](const PyExecutable& e) {
             py::list out;
             for (const runtime::ExecDevice& d : e.exec->devices)
               out.append(py::make_tuple(d.device_type, d.device_id, d.target));
             return out;
           });

  py::class_<runtime::VirtualMachine, std::shared_ptr<runtime::VirtualMachine>>(m, "VirtualMachine")
      .def(py::init([](const PyExecutable& e, std::vector<std::pair<int, int>> devices) {
             // The core's kernel formats (backends' come with their runtime plugins), as
             // relax-driver run registers them: an executable loaded from a file needs them.
             target::register_tir_interp_loader();
             target::register_interp_gpu_device();
             std::vector<DLDevice> devs;
             for (const auto& d : devices) devs.push_back(to_device(d));
             return runtime::VirtualMachine::create(e.exec, devs);
           }), py::arg("exec"), py::arg("devices") = std::vector<std::pair<int, int>>{})
      .def("invoke", [](runtime::VirtualMachine& vm, const std::string& name, py::args args) {
             int64_t index = vm.executable().find_function(name);
             RX_CHECK(index >= 0) << "the executable has no function named '" << name << "'";
             const runtime::FunctionInfo& f = vm.executable().functions[size_t(index)];
             bool bytecode = f.kind == runtime::FunctionKind::kBytecode;
             RX_CHECK(!bytecode || int64_t(args.size()) == f.num_params)
                 << "function '" << name << "' takes " << f.num_params << " arguments ("
                 << transform::join_names(f.param_names) << "), got " << args.size();
             std::vector<Value> values;
             for (size_t i = 0; i < args.size(); ++i) {
               std::string what = "function '" + name + "' parameter " +
                                  (i < f.param_names.size() ? "'" + f.param_names[i] + "'"
                                                            : std::to_string(i));
               values.push_back(to_value(args[i], what));
             }
             Value result;
             {
               py::gil_scoped_release release;
               if (bytecode) values = tools::to_param_devices(vm, f, std::move(values));
               result = tools::to_host(vm.invoke(index, runtime::Args(values)));
               values.clear();
             }
             return from_value(result);
           }, py::arg("name"))
      .def("get_function", &runtime::VirtualMachine::get_function, py::arg("name"))
      .def("devices", [](const runtime::VirtualMachine& vm) {
             py::list out;
             for (const DLDevice& d : vm.devices()) out.append(py::make_tuple(int(d.device_type), d.device_id));
             return out;
           });
}

}  // namespace relax::python

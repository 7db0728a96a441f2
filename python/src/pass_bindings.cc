// Passes written in Python: registered in the session's pass registry (plugin "python") with a
// declared granularity and options, so a pipeline line, a YAML file and relax.compile use them
// like any other pass; and the normalising mutator relax.ir.ExprMutator builds on
// (relax._relax.Mutator: relax::ExprMutator whose visit hooks call the Python object's
// visit_call_, visit_tuple_, ... methods).
#include <pybind11/stl.h>

#include "nodes.h"
#include "relax/ir/block_builder.h"
#include "relax/ir/expr_functor.h"
#include "relax/support/diagnostic.h"
#include "relax/transform/pass.h"

namespace relax::python {

namespace {

/// relax::ExprMutator calling back into a Python relax.ir.ExprMutator for the node kinds a
/// pass usually rewrites. The Python base methods call default_visit, the C++ behaviour.
class PyMutator : public ExprMutator {
 public:
  PyMutator(py::object self, IRModule mod) : ExprMutator(std::move(mod)), self_(std::move(self)) {}

  using ExprMutator::visit_;
  Expr visit_(const Call* op) override { return hook("visit_call_", op); }
  Expr visit_(const Tuple* op) override { return hook("visit_tuple_", op); }
  Expr visit_(const TupleGetItem* op) override { return hook("visit_tuple_getitem_", op); }
  Expr visit_(const Constant* op) override { return hook("visit_constant_", op); }
  Expr visit_(const ShapeExpr* op) override { return hook("visit_shape_expr_", op); }
  Expr visit_(const PrimValue* op) override { return hook("visit_prim_value_", op); }
  Expr visit_(const If* op) override { return hook("visit_if_", op); }
  Expr visit_(const Function* op) override { return hook("visit_function_", op); }
  Expr visit_(const Var* op) override { return hook("visit_var_", op); }
  Expr visit_(const DataflowVar* op) override { return hook("visit_dataflow_var_", op); }

  /// What relax::ExprMutator does for `e`'s kind (children visited, rebuilt when changed).
  Expr default_visit(const Expr& e) {
    switch (ExprKind(e->kind())) {
      case ExprKind::kCall: return ExprMutator::visit_(e.as<Call>());
      case ExprKind::kTuple: return ExprMutator::visit_(e.as<Tuple>());
      case ExprKind::kTupleGetItem: return ExprMutator::visit_(e.as<TupleGetItem>());
      case ExprKind::kConstant: return ExprMutator::visit_(e.as<Constant>());
      case ExprKind::kShapeExpr: return ExprMutator::visit_(e.as<ShapeExpr>());
      case ExprKind::kPrimValue: return ExprMutator::visit_(e.as<PrimValue>());
      case ExprKind::kIf: return ExprMutator::visit_(e.as<If>());
      case ExprKind::kFunction: return ExprMutator::visit_(e.as<Function>());
      case ExprKind::kVar: return ExprMutator::visit_(e.as<Var>());
      case ExprKind::kDataflowVar: return ExprMutator::visit_(e.as<DataflowVar>());
      default: return ExprMutator::visit_expr(e);
    }
  }

 private:
  Expr hook(const char* method, const ExprNode* op) {
    py::object result = self_.attr(method)(PyExpr{Expr(op)});
    return expr_of(result, std::string("the result of ") + method);
  }

  py::object self_;
};

/// Pass options as a Python dict (name -> bool/int/float/str).
py::dict options_dict(const transform::PassOptions& options) {
  py::dict d;
  for (const auto& [k, v] : options.values())
    d[py::str(k)] = std::visit([](const auto& x) { return py::cast(x); }, v);
  return d;
}

transform::OptionValue option_value(py::handle v, const std::string& name) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>();
  if (py::isinstance<py::int_>(v)) return v.cast<int64_t>();
  if (py::isinstance<py::float_>(v)) return v.cast<double>();
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  RX_THROW() << "option '" << name << "': the default must be a bool, int, float or str";
  return false;
}

/// A Python callable that drops its last reference under the GIL, wherever it goes.
std::shared_ptr<py::object> hold(py::function fn) {
  return std::shared_ptr<py::object>(new py::object(std::move(fn)), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
}

[[noreturn]] void rethrow_python(const std::string& pass, py::error_already_set& e) {
  // A relax.RelaxError raised inside keeps its message.
  RX_THROW() << "Python pass '" << pass << "' raised " << python_error_text(e);
  throw;  // unreachable: RX_THROW throws
}

}  // namespace

void bind_passes(py::module_& m) {
  py::class_<PyMutator>(m, "Mutator")
      .def(py::init<py::object, IRModule>(), py::arg("self"), py::arg("mod") = IRModule())
      .def("visit_expr", [](PyMutator& mu, const PyExpr& e) { return PyExpr{mu.visit_expr(e.expr)}; })
      .def("default_visit", [](PyMutator& mu, const PyExpr& e) { return PyExpr{mu.default_visit(e.expr)}; })
      .def("lookup_binding", [](PyMutator& mu, const PyExpr& var) -> py::object {
             auto v = var.expr.as_ref<VarNode>();
             if (!v) return py::none();
             Expr value = mu.builder().lookup_binding(v);
             return value ? py::cast(PyExpr{value}) : py::none();
           });

  m.def("register_pass",
        [](const std::string& name, const std::string& granularity, py::function fn,
           const std::string& summary, py::dict options) {
          transform::PassInfo info;
          info.name = name;
          info.summary = summary.empty() ? "a pass written in Python" : summary;
          for (auto [k, v] : options) {
            std::string key = py::str(k);
            transform::OptionValue dflt = option_value(v, key);
            info.options.push_back({key, transform::type_of(dflt), dflt, ""});
          }
          std::shared_ptr<py::object> body = hold(std::move(fn));
          transform::PassBody pass_body;
          if (granularity == "module") {
            info.granularity = transform::Granularity::kModule;
            pass_body = transform::ModuleTransform(
                [body, name](const IRModule& mod, const transform::PassOptions& o,
                             transform::PassContext&) -> IRModule {
                  py::gil_scoped_acquire gil;
                  try {
                    py::object r = (*body)(mod, options_dict(o));
                    RX_CHECK(py::isinstance<IRModule>(r))
                        << "Python pass '" << name << "' must return a relax.IRModule, got a "
                        << py::str(py::type::of(r).attr("__name__")).cast<std::string>();
                    return r.cast<IRModule>();
                  } catch (py::error_already_set& e) {
                    rethrow_python(name, e);
                  }
                });
          } else if (granularity == "function") {
            info.granularity = transform::Granularity::kFunction;
            pass_body = transform::FunctionTransform(
                [body, name](const Ref<Function>& f, const transform::PassArgs& a) -> Ref<Function> {
                  py::gil_scoped_acquire gil;
                  try {
                    py::object r = (*body)(PyExpr{f}, a.module, options_dict(a.options));
                    auto out = expr_of(r, "the result of Python pass '" + name + "'").as_ref<Function>();
                    RX_CHECK(out) << "Python pass '" << name << "' must return a Relax function";
                    return out;
                  } catch (py::error_already_set& e) {
                    rethrow_python(name, e);
                  }
                });
          } else {
            RX_THROW() << "register_pass " << name << ": granularity '" << granularity
                       << "' is not one of module, function";
          }
          RX_CHECK(!name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") ==
                                        std::string::npos)
              << "register_pass: the name '" << name << "' must be kebab-case (a-z, 0-9, -)";
          session().registry().add(std::move(info), std::move(pass_body), "python");
        },
        py::arg("name"), py::arg("granularity"), py::arg("fn"), py::arg("summary") = "",
        py::arg("options") = py::dict());
  m.def("unregister_pass", [](const std::string& name) { return session().registry().remove(name); });
}

}  // namespace relax::python

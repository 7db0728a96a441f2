// Read-only IR nodes for Python visitors and mutators, and the constructors a mutator needs
// (relax/ir.py builds the visitor classes on them). Every node is relax._relax.Expr with a
// `kind` ("Call", "Var", "Function", ...) and the fields of that kind; asking for a field the
// kind lacks raises RelaxError naming both.
#include <pybind11/stl.h>

#include <unordered_set>

#include "nodes.h"
#include "relax/ir/op.h"
#include "relax/ir/prim_func.h"
#include "relax/tir/stmt_functor.h"
#include "relax/ir/struct_info.h"
#include "relax/support/diagnostic.h"
#include "relax/text/printer.h"

namespace relax::python {

namespace {

template <class T>
const T* as(const PyExpr& e, const char* field) {
  const T* node = e.expr.as<T>();
  RX_CHECK(node != nullptr) << "a " << relax_kind_name(e.expr->kind()) << " has no field '"
                            << field << "'";
  return node;
}

py::list exprs(const std::vector<Expr>& v) {
  py::list out;
  for (const Expr& e : v) out.append(PyExpr{e});
  return out;
}

/// An attribute value as a Python value (PrimExprs and objects as their text).
py::object attr_to_py(const AttrValue& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) return py::none();
        else if constexpr (std::is_same_v<T, DataType>) return py::str(x.to_string());
        else if constexpr (std::is_same_v<T, std::vector<tir::PrimExpr>>) {
          py::list out;
          for (const tir::PrimExpr& p : x) out.append(print_prim_expr(p));
          return out;
        } else if constexpr (std::is_same_v<T, Ref<Object>>) return py::none();
        else return py::cast(x);
      },
      v);
}

py::dict attrs_to_py(const Attrs& attrs) {
  py::dict d;
  if (!attrs) return d;
  for (const auto& [k, v] : attrs->fields) d[py::str(k)] = attr_to_py(v);
  return d;
}

/// A Python value as an attribute value (bool, int, float, str, lists of ints/floats/strs).
AttrValue attr_from_py(py::handle v, const std::string& key) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>();
  if (py::isinstance<py::int_>(v)) return v.cast<int64_t>();
  if (py::isinstance<py::float_>(v)) return v.cast<double>();
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    py::sequence s = v.cast<py::sequence>();
    if (s.size() == 0 || py::isinstance<py::int_>(s[0])) return v.cast<std::vector<int64_t>>();
    if (py::isinstance<py::float_>(s[0])) return v.cast<std::vector<double>>();
    return v.cast<std::vector<std::string>>();
  }
  RX_THROW() << "attribute '" << key << "': cannot use a Python "
             << py::str(py::type::of(v).attr("__name__")).cast<std::string>();
  return {};
}

}  // namespace

Expr expr_of(py::handle obj, const std::string& what) {
  RX_CHECK(py::isinstance<PyExpr>(obj))
      << what << ": expected a relax expression, got a Python "
      << py::str(py::type::of(obj).attr("__name__")).cast<std::string>();
  return obj.cast<PyExpr>().expr;
}

void bind_nodes(py::module_& m) {
  py::class_<PyExpr>(m, "Expr")
      .def_property_readonly("kind", [](const PyExpr& e) { return relax_kind_name(e.expr->kind()); })
      .def_property_readonly("struct_info", [](const PyExpr& e) {
             return e.expr->struct_info ? print_struct_info(e.expr->struct_info) : std::string();
           })
      .def_property_readonly("name", [](const PyExpr& e) -> std::string {
             if (auto* v = e.expr.as<VarNode>()) return v->name;
             if (auto* g = e.expr.as<GlobalVar>()) return g->name;
             if (auto* o = e.expr.as<Op>()) return o->name;
             if (auto* x = e.expr.as<ExternFunc>()) return x->global_symbol;
             RX_THROW() << "a " << relax_kind_name(e.expr->kind()) << " has no field 'name'";
             return "";
           })
      .def_property_readonly("op", [](const PyExpr& e) { return PyExpr{as<Call>(e, "op")->op}; })
      .def_property_readonly("args", [](const PyExpr& e) { return exprs(as<Call>(e, "args")->args); })
      .def_property_readonly("attrs", [](const PyExpr& e) {
             if (auto* c = e.expr.as<Call>()) return attrs_to_py(c->attrs);
             if (auto* f = e.expr.as<BaseFuncNode>()) return attrs_to_py(f->attrs);
             RX_THROW() << "a " << relax_kind_name(e.expr->kind()) << " has no field 'attrs'";
             return py::dict();
           })
      .def_property_readonly("sinfo_args", [](const PyExpr& e) {
             std::vector<std::string> out;
             for (const StructInfo& s : as<Call>(e, "sinfo_args")->sinfo_args) out.push_back(print_struct_info(s));
             return out;
           })
      .def_property_readonly("fields", [](const PyExpr& e) { return exprs(as<Tuple>(e, "fields")->fields); })
      .def_property_readonly("tuple_value", [](const PyExpr& e) { return PyExpr{as<TupleGetItem>(e, "tuple_value")->tuple}; })
      .def_property_readonly("index", [](const PyExpr& e) { return as<TupleGetItem>(e, "index")->index; })
      .def_property_readonly("data", [](const PyExpr& e) { return as<Constant>(e, "data")->data; })
      .def_property_readonly("value", [](const PyExpr& e) -> py::object {
             if (auto* p = e.expr.as<PrimValue>()) return py::str(print_prim_expr(p->value));
             if (auto* s = e.expr.as<StringImm>()) return py::str(s->value);
             if (auto* d = e.expr.as<DataTypeImm>()) return py::str(d->value.to_string());
             RX_THROW() << "a " << relax_kind_name(e.expr->kind()) << " has no field 'value'";
             return py::none();
           })
      .def_property_readonly("values", [](const PyExpr& e) {
             std::vector<std::string> out;
             for (const PrimExpr& p : as<ShapeExpr>(e, "values")->values) out.push_back(print_prim_expr(p));
             return out;
           })
      .def_property_readonly("cond", [](const PyExpr& e) { return PyExpr{as<If>(e, "cond")->cond}; })
      .def_property_readonly("then_branch", [](const PyExpr& e) { return PyExpr{as<If>(e, "then_branch")->then_branch}; })
      .def_property_readonly("else_branch", [](const PyExpr& e) { return PyExpr{as<If>(e, "else_branch")->else_branch}; })
      .def_property_readonly("blocks", [](const PyExpr& e) {
             py::list out;
             for (const Block& b : as<SeqExpr>(e, "blocks")->blocks) out.append(PyBlock{b});
             return out;
           })
      .def_property_readonly("body", [](const PyExpr& e) -> PyExpr {
             if (auto* s = e.expr.as<SeqExpr>()) return {s->body};
             return {as<Function>(e, "body")->body};
           })
      .def_property_readonly("params", [](const PyExpr& e) {
             py::list out;
             for (const Ref<Var>& p : as<Function>(e, "params")->params) out.append(PyExpr{p});
             return out;
           })
      .def_property_readonly("ret_struct_info", [](const PyExpr& e) {
             return print_struct_info(as<Function>(e, "ret_struct_info")->ret_struct_info);
           })
      .def_property_readonly("is_pure", [](const PyExpr& e) { return as<Function>(e, "is_pure")->is_pure; })
      .def("same_as", [](const PyExpr& a, const PyExpr& b) { return a.expr.same_as(b.expr); })
      .def("__eq__", [](const PyExpr& a, py::handle b) {
             return py::isinstance<PyExpr>(b) && a.expr.same_as(b.cast<PyExpr>().expr);
           })
      .def("__hash__", [](const PyExpr& e) { return std::hash<const void*>()(e.expr.get()); })
      .def("__str__", [](const PyExpr& e) {
             if (auto f = e.expr.as_ref<Function>()) return print_function(f);
             return print_expr(e.expr);
           })
      .def("__repr__", [](const PyExpr& e) {
             return std::string("<relax.") + relax_kind_name(e.expr->kind()) + " " + print_expr(e.expr).substr(0, 60) + ">";
           });

  py::class_<PyBinding>(m, "Binding")
      .def_property_readonly("kind", [](const PyBinding& b) { return relax_kind_name(b.binding->kind()); })
      .def_property_readonly("var", [](const PyBinding& b) { return PyExpr{b.binding->var}; })
      .def_property_readonly("value", [](const PyBinding& b) { return PyExpr{b.binding->value}; })
      .def_property_readonly("struct_info", [](const PyBinding& b) {
             auto* mc = b.binding.as<MatchCast>();
             return mc ? print_struct_info(mc->struct_info) : print_struct_info(b.binding->var->struct_info);
           });
  py::class_<PyBlock>(m, "Block")
      .def_property_readonly("is_dataflow", [](const PyBlock& b) { return b.block->is_dataflow(); })
      .def_property_readonly("bindings", [](const PyBlock& b) {
             py::list out;
             for (const Binding& x : b.block->bindings) out.append(PyBinding{x});
             return out;
           });

  // ---- Constructors for mutators (struct info is inferred when the mutator emits them).
  m.def("make_call", [](const std::string& op, py::list args, py::dict attrs, py::object like) {
          std::vector<Expr> a;
          for (size_t i = 0; i < args.size(); ++i) a.push_back(expr_of(args[i], op + " argument " + std::to_string(i)));
          Attrs at;
          if (!like.is_none()) {
            const Call* c = expr_of(like, "like").as<Call>();
            RX_CHECK(c != nullptr) << "make_call: `like` must be a Call";
            at = c->attrs;
          }
          for (auto [k, v] : attrs) {
            std::string key = py::str(k);
            at = with_attr(at, key, attr_from_py(v, key));
          }
          return PyExpr{call_op(op, std::move(a), at)};
        }, py::arg("op"), py::arg("args"), py::arg("attrs") = py::dict(), py::arg("like") = py::none(),
        "A call of op `op` (\"relax.add\" or \"add\"); attributes from `like` (a Call) and `attrs`");
  m.def("make_tuple", [](py::list fields) {
          std::vector<Expr> f;
          for (size_t i = 0; i < fields.size(); ++i) f.push_back(expr_of(fields[i], "tuple field " + std::to_string(i)));
          return PyExpr{make_tuple(std::move(f))};
        });
  m.def("make_tuple_get_item", [](const PyExpr& t, int index) {
          return PyExpr{make_ref<TupleGetItem>(t.expr, index)};
        });
  m.def("make_constant", [](const runtime::NDArray& a) { return PyExpr{make_constant(a.copy())}; },
        "A constant holding a copy of the array");
  m.def("make_prim_value", [](int64_t v) { return PyExpr{make_prim_value(v)}; });
  m.def("make_string", [](const std::string& s) { return PyExpr{make_string(s)}; });
  m.def("get_function", [](const IRModule& mod, const std::string& name) {
          return PyExpr{mod.lookup(name)};
        }, py::arg("mod"), py::arg("name"));
  m.def("prim_func_signature", [](const IRModule& mod, const std::string& name) {
          auto pf = mod.lookup(name).as_ref<tir::PrimFunc>();
          RX_CHECK(pf) << "'" << name << "' is not a PrimFunc of the module";
          std::unordered_set<const Object*> written;  // data vars of stored-to buffers
          tir::post_order_visit(pf->body, [&](const tir::Stmt& s) {
            if (auto* st = s.as<tir::BufferStore>()) written.insert(st->buffer->data.get());
          });
          py::list out;
          for (size_t i = 0; i < pf->params.size(); ++i) {
            py::dict d;
            d["name"] = pf->params[i]->name;
            Ref<tir::Buffer> b = pf->param_buffer(i);
            if (!b) {
              d["scalar"] = true;
              d["dtype"] = pf->params[i]->dtype.to_string();
            } else {
              std::vector<std::string> shape;
              for (const PrimExpr& e : b->shape) shape.push_back(print_prim_expr(e));
              d["scalar"] = false;
              d["shape"] = shape;
              d["dtype"] = b->dtype.to_string();
              d["written"] = written.count(b->data.get()) != 0;
            }
            out.append(d);
          }
          return out;
        }, py::arg("mod"), py::arg("name"),
        "Each parameter of PrimFunc `name`: name, scalar, dtype, and for buffers shape (as text) "
        "and whether the body stores to it (an output)");
  m.def("with_function", [](const IRModule& mod, const std::string& name, const PyExpr& f) {
          IRModule out = mod;
          auto func = f.expr.as_ref<BaseFuncNode>();
          RX_CHECK(func) << "with_function: '" << name << "' must be a function, got a "
                         << relax_kind_name(f.expr->kind());
          out.update(name, func);
          return out;
        }, py::arg("mod"), py::arg("name"), py::arg("func"), "`mod` with function `name` replaced");
}

}  // namespace relax::python

"""The Relax IR for Python passes: visitors and mutators over expressions (after the Relax pass
tutorial, ../shared/seeds/relax-pass-tutorial.md).

Nodes are relax.ir.Expr (kind "Call", "Var", "Function", ...; fields by kind: call.op,
call.args, call.attrs, tuple.fields, func.params, func.body, seq.blocks, ...), Binding (var,
value) and Block (bindings, is_dataflow).

ExprVisitor   analysis: visit_expr dispatches to visit_<kind>_ (visit_call_, visit_if_, ...),
              whose defaults visit the children; override some and call super() to recurse.
ExprMutator   transformation: override visit_call_ (and visit_tuple_, visit_constant_, visit_var_
              for the uses of a variable, ...) to
              return a replacement; super().visit_call_(call) is the default (children
              rewritten). It normalises as relax::ExprMutator does: every rewritten binding is
              re-emitted with its struct info inferred, in A-normal form.
"""
import re

from . import _relax
from ._relax import Expr, Binding, Block  # noqa: F401


def _snake(kind):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", kind).lower()


_METHODS = {k: "visit_" + _snake(k) + "_" for k in (
    "Constant", "Tuple", "Var", "DataflowVar", "ShapeExpr", "PrimValue", "StringImm",
    "DataTypeImm", "GlobalVar", "Op", "ExternFunc", "Call", "If", "SeqExpr", "Function")}
_METHODS["TupleGetItem"] = "visit_tuple_getitem_"


def functions(mod):
    """(name, Expr) of every Relax function of mod."""
    out = []
    for name in mod.function_names():
        f = _relax.get_function(mod, name)
        if f.kind == "Function":
            out.append((name, f))
    return out


class ExprVisitor:
    """Visits every expression, binding and block (see the module docstring)."""

    def visit_expr(self, expr):
        return getattr(self, _METHODS.get(expr.kind, "visit_leaf_"))(expr)

    def visit_leaf_(self, expr):
        pass

    visit_constant_ = visit_var_ = visit_dataflow_var_ = visit_shape_expr_ = visit_leaf_
    visit_prim_value_ = visit_string_imm_ = visit_data_type_imm_ = visit_leaf_
    visit_global_var_ = visit_op_ = visit_extern_func_ = visit_leaf_

    def visit_tuple_(self, tup):
        for f in tup.fields:
            self.visit_expr(f)

    def visit_tuple_getitem_(self, item):
        self.visit_expr(item.tuple_value)

    def visit_call_(self, call):
        self.visit_expr(call.op)
        for a in call.args:
            self.visit_expr(a)

    def visit_if_(self, node):
        self.visit_expr(node.cond)
        self.visit_expr(node.then_branch)
        self.visit_expr(node.else_branch)

    def visit_seq_expr_(self, seq):
        for block in seq.blocks:
            self.visit_binding_block(block)
        self.visit_expr(seq.body)

    def visit_function_(self, func):
        for p in func.params:
            self.visit_var_def(p)
        self.visit_expr(func.body)

    def visit_binding_block(self, block):
        for b in block.bindings:
            self.visit_binding(b)

    def visit_binding(self, binding):
        self.visit_expr(binding.value)
        self.visit_var_def(binding.var)

    def visit_var_def(self, var):
        pass

    def visit_module(self, mod):
        """Visits every Relax function of mod."""
        for _, f in functions(mod):
            self.visit_expr(f)


def post_order_visit(expr, fn):
    """Calls fn on every expression of expr, children first."""
    class _Post(ExprVisitor):
        def visit_expr(self, e):
            super().visit_expr(e)
            fn(e)
    _Post().visit_expr(expr)


class ExprMutator:
    """Rewrites expressions (see the module docstring). Use visit_expr on a function, or
    visit_module(mod) for a new module with every Relax function rewritten."""

    def __init__(self, mod=None):
        self.mod = mod
        self._impl = None

    def _run(self, expr, mod):
        self._impl = _relax.Mutator(self, mod if mod is not None else _relax.IRModule())
        try:
            return self._impl.visit_expr(expr)
        finally:
            self._impl = None  # no cycle through the C++ mutator

    def visit_expr(self, expr):
        if self._impl is None:
            return self._run(expr, self.mod)
        return self._impl.visit_expr(expr)

    def lookup_binding(self, var):
        """The value bound to var in the function being rewritten, or None (a parameter)."""
        return self._impl.lookup_binding(var)

    def _default(self, expr):
        return self._impl.default_visit(expr)

    visit_call_ = visit_tuple_ = visit_tuple_getitem_ = visit_constant_ = _default
    visit_shape_expr_ = visit_prim_value_ = visit_if_ = visit_function_ = _default
    visit_var_ = visit_dataflow_var_ = _default  # uses of variables (not their definitions)

    def visit_module(self, mod):
        self.mod = mod
        out = mod
        for name, f in functions(mod):
            new = self._run(f, mod)
            if not new.same_as(f):
                out = _relax.with_function(out, name, new)
        return out


def call(op, args, attrs=None, like=None):
    """A call of op `op` ("relax.nn.relu" or "nn.relu"), attributes from `like` and `attrs`."""
    if not op.startswith("relax."):
        op = "relax." + op
    return _relax.make_call(op, list(args), dict(attrs or {}), like)


def const(array):
    """A constant holding a copy of array (NumPy, torch, relax.NDArray)."""
    from .runtime import from_dlpack
    return _relax.make_constant(array if isinstance(array, _relax.NDArray) else from_dlpack(array))


def tuple_(fields):
    return _relax.make_tuple(list(fields))


def tuple_getitem(tup, index):
    return _relax.make_tuple_get_item(tup, index)


def prim_value(v):
    return _relax.make_prim_value(int(v))


def string(s):
    return _relax.make_string(s)


def get_function(mod, name):
    return _relax.get_function(mod, name)


def with_function(mod, name, func):
    return _relax.with_function(mod, name, func)

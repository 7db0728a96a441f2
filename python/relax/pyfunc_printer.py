"""as_pyfunc: a Relax function printed as a Python function over PyTorch (the design's
"conversion between Relax functions and Python functions"), at any stage of the pipeline before
the VM lowering: high-level ops map to torch / torch.nn.functional, R.call_tir to
self.call_tir, R.call_dps_packed to self.call_dps_packed, R.call_py_func and calls of module
functions to self.<name>(...). The result is the source of an @I.py_func method for a
BasePyModule (with_py_func puts it into a module); symbolic dims of the parameters are read from
the tensors (`n = x.shape[0]`). An op without a PyTorch mapping raises RelaxError naming it.
"""
import re

from . import _relax
from .pymodule import PY_FUNC_PREFIX, py_func_name

_TENSOR = re.compile(r'R\.Tensor\(\((.*?)\), dtype="(\w+)"')


def _binary(fn):
    return lambda a, at: f"{fn}({a[0]}, {a[1]})"


def _unary(fn):
    return lambda a, at: f"{fn}({a[0]})"


def _permute(a, at):
    axes = at.get("axes")
    return f"{a[0]}.permute({list(axes)})" if axes else f"{a[0]}.permute(*reversed(range({a[0]}.dim())))"


def _expand_dims(a, at):
    axes = at.get("axis")
    axes = sorted(axes if isinstance(axes, list) else [axes])
    return a[0] + "".join(f".unsqueeze({x})" for x in axes)


def _reduce(fn):
    def f(a, at):
        axis, keep = at.get("axis"), bool(at.get("keepdims", False))
        return f"{fn}({a[0]})" if axis is None else f"{fn}({a[0]}, dim={tuple(axis)}, keepdim={keep})"
    return f


def _pad2(p):
    p = list(p or [0, 0])
    if len(p) == 4 and (p[0], p[1]) != (p[2], p[3]):
        raise _relax.RelaxError(f"as_pyfunc: asymmetric padding {p} has no PyTorch mapping")
    return (p[0], p[1]) if len(p) >= 2 else (p[0], p[0])


def _conv2d(a, at):
    for k, want in (("data_layout", "NCHW"), ("kernel_layout", "OIHW")):
        if at.get(k, want) != want:
            raise _relax.RelaxError(f"as_pyfunc: relax.nn.conv2d with {k}={at[k]} (only {want})")
    return (f"F.conv2d({a[0]}, {a[1]}, stride={tuple(at.get('strides', [1, 1]))}, "
            f"padding={_pad2(at.get('padding'))}, dilation={tuple(at.get('dilation', [1, 1]))}, "
            f"groups={at.get('groups', 1)})")


def _pool(fn):
    def f(a, at):
        if at.get("layout", "NCHW") != "NCHW":
            raise _relax.RelaxError(f"as_pyfunc: relax.nn.{fn} with layout={at['layout']} (only NCHW)")
        extra = f", ceil_mode={bool(at.get('ceil_mode', False))}"
        if fn == "max_pool2d":
            extra += f", dilation={tuple(at.get('dilation', [1, 1]))}"
        else:
            extra += f", count_include_pad={bool(at.get('count_include_pad', False))}"
        return (f"F.{fn}({a[0]}, kernel_size={tuple(at['pool_size'])}, "
                f"stride={tuple(at.get('strides', at['pool_size']))}, "
                f"padding={_pad2(at.get('padding'))}{extra})")
    return f


def _batch_norm(a, at):
    # Relax: (data, gamma, beta, moving_mean, moving_var) -> (out, mean, var), inference form.
    if at.get("axis", 1) != 1:
        raise _relax.RelaxError(f"as_pyfunc: relax.nn.batch_norm with axis={at['axis']} (only 1)")
    return (f"(F.batch_norm({a[0]}, {a[3]}, {a[4]}, {a[1]}, {a[2]}, training=False, "
            f"eps={at.get('epsilon', 1e-5)}), {a[3]}, {a[4]})")


_OPS = {
    "relax.add": _binary("torch.add"), "relax.subtract": _binary("torch.sub"),
    "relax.multiply": _binary("torch.mul"), "relax.divide": _binary("torch.div"),
    "relax.maximum": _binary("torch.maximum"), "relax.minimum": _binary("torch.minimum"),
    "relax.power": _binary("torch.pow"), "relax.matmul": _binary("torch.matmul"),
    "relax.nn.relu": _unary("F.relu"), "relax.nn.gelu": _unary("F.gelu"),
    "relax.nn.silu": _unary("F.silu"), "relax.sigmoid": _unary("torch.sigmoid"),
    "relax.tanh": _unary("torch.tanh"), "relax.exp": _unary("torch.exp"),
    "relax.log": _unary("torch.log"), "relax.sqrt": _unary("torch.sqrt"),
    "relax.negative": _unary("torch.neg"), "relax.abs": _unary("torch.abs"),
    "relax.nn.softmax": lambda a, at: f"F.softmax({a[0]}, dim={at.get('axis', -1)})",
    "relax.nn.log_softmax": lambda a, at: f"F.log_softmax({a[0]}, dim={at.get('axis', -1)})",
    "relax.permute_dims": _permute,
    "relax.reshape": lambda a, at: f"torch.reshape({a[0]}, {a[1]})",
    "relax.expand_dims": _expand_dims,
    "relax.flatten": _unary("torch.flatten"),
    "relax.sum": _reduce("torch.sum"), "relax.mean": _reduce("torch.mean"),
    "relax.astype": lambda a, at: f"{a[0]}.to(torch.{at['dtype']})",
    "relax.nn.conv2d": _conv2d,
    "relax.nn.max_pool2d": _pool("max_pool2d"), "relax.nn.avg_pool2d": _pool("avg_pool2d"),
    "relax.nn.batch_norm": _batch_norm,
    "relax.nn.adaptive_avg_pool2d":
        lambda a, at: f"F.adaptive_avg_pool2d({a[0]}, {tuple(at.get('output_size') or [1, 1])})",
}


class _Printer:
    def __init__(self, mod, fname):
        self.mod, self.fname, self.lines = mod, fname, []

    def error(self, what):
        raise _relax.RelaxError(f"as_pyfunc of '{self.fname}': {what}")

    def constant(self, e):
        import numpy as np
        arr = np.from_dlpack(e.data)
        return f"torch.tensor({arr.tolist()!r}, dtype=torch.{arr.dtype})"

    def expr(self, e):
        k = e.kind
        if k in ("Var", "DataflowVar"):
            return e.name
        if k == "Constant":
            return self.constant(e)
        if k == "PrimValue":
            return e.value
        if k == "StringImm":
            return repr(e.value)
        if k == "ShapeExpr":
            return "(" + "".join(v + ", " for v in e.values) + ")"
        if k == "Tuple":
            return "(" + "".join(self.expr(f) + ", " for f in e.fields) + ")"
        if k == "TupleGetItem":
            return f"{self.expr(e.tuple_value)}[{e.index}]"
        if k == "Call":
            return self.call(e)
        return self.error(f"a {k} has no Python form here")

    def fields(self, e):
        return [self.expr(f) for f in e.fields] if e.kind == "Tuple" else [f"*{self.expr(e)}"]

    def out_sinfo(self, call):
        s = call.sinfo_args
        return s[0] if len(s) == 1 else "[" + ", ".join(s) + "]"

    def call(self, c):
        op = c.op
        if op.kind == "GlobalVar":
            return f"self.{op.name}({', '.join(self.expr(a) for a in c.args)})"
        if op.kind != "Op":
            return self.error(f"a call of a {op.kind} has no Python form")
        name = op.name
        if name == "relax.call_tir":
            return (f"self.call_tir(self.{c.args[0].name}, [{', '.join(self.fields(c.args[1]))}], "
                    f"out_sinfo={self.out_sinfo(c)})")
        if name == "relax.call_dps_packed":
            return (f"self.call_dps_packed({c.args[0].name!r}, [{', '.join(self.fields(c.args[1]))}], "
                    f"out_sinfo={self.out_sinfo(c)})")
        if name in ("relax.call_pure_packed", "relax.call_packed"):
            sym = c.args[0].name
            args = ", ".join(self.expr(a) for a in c.args[1:])
            if sym.startswith(PY_FUNC_PREFIX):
                return f"self.{sym[len(PY_FUNC_PREFIX):]}({args})"
            return f"relax.get_global_func({sym!r})({args})"
        if name not in _OPS:
            return self.error(f"op {name} has no PyTorch mapping")
        return _OPS[name]([self.expr(a) for a in c.args], c.attrs)

    def function(self, f):
        params = [p.name for p in f.params]
        self.lines.append("@I.py_func")
        self.lines.append(f"def {self.fname}(self, {', '.join(params)}):")
        known = set()
        for p in f.params:  # symbolic dims come from the tensors
            m = _TENSOR.match(p.struct_info)
            if m:
                for i, d in enumerate(x.strip() for x in m.group(1).split(",") if x.strip()):
                    if re.fullmatch(r"[A-Za-z_]\w*", d) and d not in known:
                        known.add(d)
                        self.lines.append(f"    {d} = {p.name}.shape[{i}]")
        body = f.body
        for block in body.blocks:
            for b in block.bindings:
                if b.kind != "VarBinding":
                    self.error("R.match_cast has no Python form")
                self.lines.append(f"    {b.var.name} = {self.expr(b.value)}")
        self.lines.append(f"    return {self.expr(body.body)}")
        return "\n".join(self.lines) + "\n"


def as_pyfunc(mod, name):
    """The source of an @I.py_func method computing Relax function `name` of mod with PyTorch."""
    f = _relax.get_function(mod, name)
    if f.kind != "Function":
        raise _relax.RelaxError(f"as_pyfunc: '{name}' is a {f.kind}, not a Relax function")
    return _Printer(mod, name).function(f)


def with_py_func(mod, source):
    """mod with the Python function `source` added (replacing a Relax function of its name)."""
    name = py_func_name(source)
    out = mod.copy()
    if name in out:
        out.remove(name)
    kept = [s for s in out.py_funcs if py_func_name(s) != name]
    return out.with_py_funcs(kept + [source])

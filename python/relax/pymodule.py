"""BasePyModule: an IRModule with Python functions, run with PyTorch (the Python-module design,
../shared/seeds/relax-python-module.md; docs/python.md).

Instantiating a module class (or BasePyModule.from_module(mod)) with a device is when its TIR
and Relax functions are compiled (delayed, the design's JIT): every PrimFunc gets a Relax
wrapper `__tir_<name>` so that the executable holds its kernel, and the Relax functions are all
kept as entries. Then:

  * each @I.py_func is a method of the instance (the class's own function, or the source kept in
    the module, executed) and is registered as the packed function "relax.py_func.<name>", which
    R.call_py_func calls from Relax (tensors cross as torch tensors, without copies);
  * each Relax function is a method taking and returning torch tensors (the VM, DLPack);
  * self.call_tir(self.<prim_func>, args, out_sinfo) runs a compiled kernel destination-passing
    style into new torch tensors; self.call_dps_packed("name", args, out_sinfo) calls a global
    packed function (relax.register_func) the same way.
"""
import re
import types

from . import _relax
from .runtime import VM, NDArray, _exportable, compile as _compile, device as _device, to_torch
from .script import TensorSpec, I, R, T  # noqa: F401  (the namespaces py_func sources use)

PY_FUNC_PREFIX = "relax.py_func."

_TARGETS = {1: "llvm", 12: "tir-interp,gpu=1", 7: "vulkan", 4: "opencl"}


def py_func_name(source):
    m = re.search(r"^\s*def\s+([A-Za-z_]\w*)\s*\(", source, re.M)
    if not m:
        raise _relax.RelaxError("a @I.py_func source without a def:\n" + source)
    return m.group(1)


class TirFunction:
    """self.<prim_func> of an instance: what call_tir takes."""

    def __init__(self, name):
        self.__name__ = self.name = name

    def __repr__(self):
        return f"<relax.TirFunction {self.name}>"


def _sinfo_text(p):
    dims = ", ".join(p["shape"]) + ("," if len(p["shape"]) == 1 else "")
    return f'R.Tensor(({dims}), "{p["dtype"]}")'


def _tir_wrapper(mod, name):
    """A Relax function __tir_<name> calling PrimFunc `name` by call_tir (inputs: the buffers
    it only reads; outputs: those it stores to)."""
    sig = _relax.prim_func_signature(mod, name)
    scalars = [p["name"] for p in sig if p["scalar"]]
    if scalars:
        raise _relax.RelaxError(f"PrimFunc '{name}': scalar parameters ({', '.join(scalars)}) "
                                "are not supported by BasePyModule.call_tir")
    ins = [p for p in sig if not p["written"]]
    outs = [p for p in sig if p["written"]]
    if not outs:
        raise _relax.RelaxError(f"PrimFunc '{name}' writes no buffer: nothing to return")
    syms = []
    for p in ins:
        for d in p["shape"]:
            if re.fullmatch(r"[A-Za-z_]\w*", d) and d not in syms:
                syms.append(d)
    params = ", ".join(f"{p['name']}: {_sinfo_text(p)}" for p in ins)
    out = _sinfo_text(outs[0]) if len(outs) == 1 else "[" + ", ".join(_sinfo_text(p) for p in outs) + "]"
    ret = _sinfo_text(outs[0]) if len(outs) == 1 else "R.Tuple(" + ", ".join(_sinfo_text(p) for p in outs) + ")"
    args = ", ".join(p["name"] for p in ins) + ("," if len(ins) == 1 else "")
    lines = [
        "@R.function",
        f"def __tir_{name}({params}) -> {ret}:",
        f'    R.func_attr({{"global_symbol": "__tir_{name}"}})',
        *[f"    {s} = T.int64()" for s in syms],
        "    with R.dataflow():",
        f"        lv = R.call_tir(cls.{name}, ({args}), out_sinfo={out})",
        "        R.output(lv)",
        "    return lv",
    ]
    return "\n".join("    " + l for l in lines) + "\n"


def _with_tir_wrappers(mod, tir_names):
    if not tir_names:
        return mod
    # Work-around: the kernel lowering rejects a buffer shape mixing an int32 symbolic variable
    # with int64 constants ((n, 20) with n = T.int32(), as the design writes it), so the
    # symbolic variables of the PrimFuncs are declared int64 for the build.
    text = re.sub(r"= T\.int32\(\)", "= T.int64()", str(mod))
    wrappers = "\n" + "\n".join(_tir_wrapper(mod, n) for n in tir_names)
    cut = text.find("\nmetadata = {")
    text = text + wrappers if cut < 0 else text[:cut] + wrappers + text[cut:]
    return _relax.parse(text, "<BasePyModule>")


def _pipeline_keeping(entries, pipeline):
    """The passes of `pipeline` with every function of `entries` kept as an entry."""
    from .transform import pipeline_passes
    keep = '"' + ",".join(entries) + '"'
    return ",".join(re.sub(r"entry=[^,}]*", "entry=" + keep, p) for p in pipeline_passes(pipeline))


class BasePyModule:
    """The base of module classes with @I.py_func functions (see the module docstring)."""

    ir_module = None
    _relax_globals = None

    def __init__(self, device="cpu", target=None, pipeline="default", ir_mod=None):
        mod = ir_mod if ir_mod is not None else type(self).ir_module
        if mod is None:
            raise _relax.RelaxError(f"{type(self).__name__} has no IRModule: decorate the class "
                                    "with @I.ir_module or use BasePyModule.from_module(mod)")
        self.ir_mod = mod
        self.device = _device(device)
        self.target = target or _TARGETS.get(self.device[0], "llvm")
        self.compiled_tir_funcs = {}
        self.extern_funcs = {}
        self.tir_func_names, self.relax_func_names, self.py_func_names = [], [], []
        for name in mod.function_names():
            kind = _relax.get_function(mod, name).kind
            (self.tir_func_names if kind == "PrimFunc" else self.relax_func_names).append(name)
        for source in mod.py_funcs:
            self._bind_py_func(source)
        for name in self.tir_func_names:
            setattr(self, name, TirFunction(name))
        self.relax_vm = None
        if self.tir_func_names or self.relax_func_names:
            self._build(pipeline)

    @classmethod
    def from_module(cls, mod, device="cpu", target=None, pipeline="default"):
        """An instance for an IRModule (e.g. parsed from text with @I.py_func sources)."""
        return cls(device=device, target=target, pipeline=pipeline, ir_mod=mod)

    # ---- Set-up.
    def _bind_py_func(self, source):
        name = py_func_name(source)
        fn = type(self).__dict__.get(name)
        if not callable(fn) or not getattr(fn, "__relax_py_func__", False):
            namespace = dict(type(self)._relax_globals or {})
            namespace.update(_exec_globals())
            exec(compile(source, f"<py_func {name}>", "exec"), namespace)  # noqa: S102
            fn = namespace[name]
        setattr(self, name, types.MethodType(fn, self))
        self.py_func_names.append(name)
        from . import register_func
        register_func(PY_FUNC_PREFIX + name, self._py_func_entry(name), True)

    def _py_func_entry(self, name):
        def entry(*args):
            targs = [to_torch(a) if isinstance(a, NDArray) else a for a in args]
            out = getattr(self, name)(*targs)
            return tuple(_exportable(o) for o in out) if isinstance(out, (tuple, list)) else _exportable(out)
        entry.__name__ = name
        return entry

    def _build(self, pipeline):
        mod = _with_tir_wrappers(self.ir_mod, self.tir_func_names)
        entries = self.relax_func_names + ["__tir_" + n for n in self.tir_func_names]
        self.executable = _compile(mod, target=self.target, pipeline=_pipeline_keeping(entries, pipeline))
        self.relax_vm = VM(self.executable, device=self.device, output="torch")
        packed = {f["name"] for f in self.executable.functions() if not f["bytecode"]}
        for name in self.tir_func_names:
            # The kernel itself when the executable exposes it and runs on the host
            # (destination-passing, into torch tensors allocated here); else its wrapper, which
            # moves host tensors to the device and the results back.
            direct = name in packed and self.device[0] == 1
            self.compiled_tir_funcs[name] = ("dps", name) if direct else ("wrapper", "__tir_" + name)
        for name in self.relax_func_names:
            setattr(self, name, self.relax_vm[name])

    # ---- Calls from Python functions.
    @staticmethod
    def _alloc(out_sinfo):
        import torch
        specs = out_sinfo if isinstance(out_sinfo, (list, tuple)) else [out_sinfo]
        for s in specs:
            if not isinstance(s, TensorSpec):
                raise _relax.RelaxError(f"out_sinfo: expected R.Tensor(shape, dtype), got {s!r}")
        return [torch.empty(s.concrete_shape(), dtype=s.torch_dtype()) for s in specs]

    def call_tir(self, tir_func, args, out_sinfo):
        """Runs compiled PrimFunc tir_func (self.<name> or its name) on args; returns the output
        tensor (a list when out_sinfo is a list)."""
        name = getattr(tir_func, "name", tir_func)
        if name not in self.compiled_tir_funcs:
            raise _relax.RelaxError(f"call_tir: '{name}' is not a PrimFunc of the module; "
                                    f"PrimFuncs: {', '.join(self.tir_func_names) or 'none'}")
        how, entry = self.compiled_tir_funcs[name]
        if how == "dps":
            outs = self._alloc(out_sinfo)
            self.relax_vm._handle.invoke(entry, *[_exportable(a) for a in list(args) + outs])
        else:
            res = self.relax_vm[entry](*args)
            outs = list(res) if isinstance(res, tuple) else [res]
        return outs if isinstance(out_sinfo, (list, tuple)) else outs[0]

    def call_dps_packed(self, func_name, args, out_sinfo):
        """Calls global packed function func_name(*args, *outs) on new output tensors."""
        func = self.extern_funcs.get(func_name)
        if func is None:
            func = self.extern_funcs[func_name] = _relax.get_global_func(func_name)
        outs = self._alloc(out_sinfo)
        func(*[_exportable(a) for a in args], *outs)
        return outs if isinstance(out_sinfo, (list, tuple)) else outs[0]


def _exec_globals():
    import torch
    import torch.nn.functional as F
    from . import script
    import relax
    return {"torch": torch, "F": F, "I": script.I, "R": script.R, "T": script.T, "relax": relax}

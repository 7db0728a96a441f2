"""The script namespaces I, R and T for modules written as Python classes (the Python-module
design, docs/python.md):

    from relax.script import I, R, T
    from relax import BasePyModule

    @I.ir_module
    class MyModule(BasePyModule):
        @I.py_func
        def main(self, x, w): ...            # Python over torch, kept as source in the module
        @T.prim_func
        def matmul(...): ...                  # parsed by Relax's parser, compiled on instantiation
        @R.function
        def f(x: R.Tensor(("n", 16), "float32")): ...

The class body runs as Python, so decorators and annotations must evaluate: R.function,
T.prim_func and friends are markers that return the function unchanged, R.Tensor(shape, dtype)
is a TensorSpec (what self.call_tir's out_sinfo takes at run time). I.ir_module parses the class
source with Relax's parser: a BasePyModule subclass gets its IRModule as `ir_module` (compiled
when instantiated with a device); any other class becomes the IRModule itself.
"""
import inspect
import sys
import textwrap

from . import _relax


class TensorSpec:
    """R.Tensor(shape, dtype): the shape (ints, or names in annotations) and dtype of a tensor."""

    def __init__(self, shape=None, dtype="float32", **_):
        self.shape = tuple(shape) if shape is not None else None
        self.dtype = dtype

    def torch_dtype(self):
        import torch
        return {"bool": torch.bool}.get(self.dtype) or getattr(torch, self.dtype)

    def concrete_shape(self, what="out_sinfo"):
        if self.shape is None or not all(isinstance(d, int) or hasattr(d, "__index__") for d in self.shape):
            raise _relax.RelaxError(f"{what}: the shape {self.shape} must be known integers here")
        return tuple(int(d) for d in self.shape)

    def __repr__(self):
        return f'R.Tensor({self.shape}, "{self.dtype}")'


class _Marker:
    """A decorator (with or without arguments) that returns the function unchanged; also any
    attribute or call of it (T.handle, T.int32(), R.Shape([...])) in annotations."""

    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and inspect.isfunction(args[0]):
            return args[0]
        return _Marker(self._name + "(...)")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Marker(self._name + "." + name)

    def __getitem__(self, _):
        return self

    def __repr__(self):
        return self._name


class _Namespace:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Marker(self._name + "." + name)


class _R(_Namespace):
    @staticmethod
    def Tensor(shape=None, dtype="float32", **kw):  # noqa: N802 (TVMScript spelling)
        return TensorSpec(shape, dtype, **kw)

    @staticmethod
    def Tuple(*fields):  # noqa: N802
        return list(fields[0]) if len(fields) == 1 and isinstance(fields[0], (list, tuple)) else list(fields)


class _I(_Namespace):
    @staticmethod
    def py_func(fn):
        """Marks a Python function of a module class (kept as source in the IRModule)."""
        fn.__relax_py_func__ = True
        return fn

    @staticmethod
    def ir_module(cls):
        """Parses the class source: a BasePyModule subclass keeps its IRModule as `ir_module`;
        any other class becomes the IRModule. Parse errors are RelaxErrors naming the file."""
        from .pymodule import BasePyModule
        source = textwrap.dedent(inspect.getsource(cls))
        file = inspect.getsourcefile(cls) or "<class " + cls.__name__ + ">"
        mod = _relax.parse(source, file)
        if not (isinstance(cls, type) and issubclass(cls, BasePyModule)):
            return mod
        # The Relax and TIR functions are reached through the instance (compiled); the Python
        # class attributes of those names are the markers' leftovers.
        for name in mod.function_names():
            if name in cls.__dict__:
                delattr(cls, name)
        cls.ir_module = mod
        cls._relax_globals = sys.modules[cls.__module__].__dict__
        return cls


I = _I("I")
R = _R("R")
T = _Namespace("T")

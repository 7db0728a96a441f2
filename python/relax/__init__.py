"""Relax: a plugin-based ML compiler, from Python.

    import relax, numpy as np
    mod = relax.parse(open("model.rx").read())          # or relax.import_model("m.onnx")
    exe = relax.compile(mod, target="llvm")
    vm = relax.VM(exe)
    y = vm["main"](np.ones((1, 784), "float32"))         # NumPy in, NumPy out (torch: torch)

See docs/python.md.
"""
import atexit

from . import _relax
from ._relax import (  # noqa: F401
    IRModule,
    NDArray,
    PackedFunc,
    RelaxError,
    InternalError,
    parse,
    parse_file,
    structural_equal,
    import_model,
    load_plugin,
    get_global_func,
)
from .runtime import Executable, VM, compile, load, device, from_dlpack  # noqa: F401
from . import transform, ir  # noqa: F401


_registered = set()


def register_func(name, fn, override=False):
    """Registers Python callable fn as global packed function `name` (what R.call_dps_packed
    and R.call_packed find); it receives relax.NDArrays for tensors (relax.runtime.to_torch /
    to_numpy view them without copies). Removed again when the interpreter exits."""
    _relax.register_func(name, fn, override)
    _registered.add(name)
    return fn


@atexit.register
def _unregister_python_funcs():
    # Before the interpreter goes: the registry must not outlive the Python objects it holds.
    for name in _registered:
        _relax.remove_global_func(name)
    _registered.clear()


def print_module(mod, show_constants=True):
    """The text of `mod` (what print(mod) shows; parse() reads it back)."""
    return _relax.print_module(mod, show_constants)


def list_plugins():
    """Every plugin on the search path: name, path, version, loaded, refused, provides."""
    return _relax.list_plugins()


def list_targets():
    """Every target kind the session could use: name, device, gpu, plugin, help."""
    return _relax.list_targets()


def list_devices():
    """The CPU and the devices the runtime plugins see: device ("vulkan:0"), runtime, description."""
    return _relax.list_devices()


__all__ = [
    "IRModule", "NDArray", "PackedFunc", "RelaxError", "InternalError", "parse", "parse_file",
    "print_module", "structural_equal", "import_model", "load_plugin", "get_global_func",
    "register_func", "Executable", "VM", "compile", "load", "device", "from_dlpack", "transform",
    "list_plugins", "list_targets", "list_devices",
]

from .pymodule import BasePyModule  # noqa: E402,F401
from .pyfunc_printer import as_pyfunc  # noqa: E402,F401

IRModule.as_pyfunc = lambda self, name: as_pyfunc(self, name)
IRModule.__getitem__ = lambda self, name: ir.get_function(self, name)  # mod["main"]: relax.ir.Expr
__all__ += ["BasePyModule", "as_pyfunc"]

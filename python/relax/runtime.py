"""Executables and the VM, with NumPy and PyTorch tensors in and out through DLPack.

A VM function takes NumPy arrays, torch tensors or relax.NDArrays without copying them (their
memory is handed to Relax through DLPack) and returns tensors of the kind it was given: torch
tensors when any argument is a torch tensor, else NumPy arrays when any is a NumPy array, else
relax.NDArrays. The results view the VM's memory (no copy either). Non-contiguous or read-only
inputs, and torch tensors that require grad, are the exceptions: they are made contiguous (a copy)
or detached first, as DLPack cannot carry them.
"""
import os

from . import _relax
from ._relax import NDArray, RelaxError

# DLPack device types by the names Relax and TVM use.
_DEVICE_TYPES = {"cpu": 1, "llvm": 1, "cuda": 2, "gpu": 2, "opencl": 4, "vulkan": 7, "metal": 8,
                 "rocm": 10, "ext_dev": 12, "tir-interp-gpu": 12}


def device(name, index=0):
    """A device as (DLPack type, id): device("cpu"), device("vulkan", 0), device("cuda:1")."""
    if isinstance(name, tuple):
        return (int(name[0]), int(name[1]))
    if ":" in name:
        name, idx = name.split(":", 1)
        index = int(idx)
    if name not in _DEVICE_TYPES:
        raise RelaxError(f"unknown device '{name}'; expected one of {', '.join(sorted(_DEVICE_TYPES))}")
    return (_DEVICE_TYPES[name], int(index))


def from_dlpack(obj):
    """A relax.NDArray viewing obj's memory (anything with __dlpack__), without a copy."""
    return NDArray.from_dlpack(_exportable(obj))


class Executable:
    """A compiled module: run it with VM(exe); save(path) / relax.load(path) for files."""

    def __init__(self, handle, lowered=None, report=None):
        self.handle = handle
        self.lowered = lowered  # the IRModule after the pipeline (None when loaded)
        self.report = report or {}

    def save(self, path):
        self.handle.save(os.fspath(path))

    def as_bytes(self):
        return self.handle.as_bytes()

    def functions(self):
        return self.handle.functions()

    def devices(self):
        return self.handle.devices()

    def __repr__(self):
        names = [f["name"] for f in self.functions() if f["bytecode"]]
        return f"<relax.Executable {', '.join(names)}>"


def compile(mod, target="", pipeline="", host="", jit=False, time_passes=False,
            verify_each=None, upper_bounds=(), jobs=0):
    """Compiles a relax.IRModule or a model file (.rx, .onnx, ...) to an Executable.

    target: "llvm" (default), "tir-interp", "vulkan", ...; pipeline: a built-in name ("default",
    "o0"), a YAML file or a one-line pipeline. Raises RelaxError with the compiler's message.
    """
    if isinstance(mod, os.PathLike):
        mod = os.fspath(mod)
    handle, lowered, report = _relax.compile(mod, target=target, pipeline=pipeline, host=host,
                                             jit=jit, time_passes=time_passes,
                                             verify_each=verify_each,
                                             upper_bounds=list(upper_bounds), jobs=jobs)
    return Executable(handle, lowered, report)


def load(path_or_bytes):
    """An Executable from a .rxe file (or its bytes)."""
    if isinstance(path_or_bytes, (bytes, bytearray)):
        return Executable(_relax.Executable.from_bytes(bytes(path_or_bytes)))
    return Executable(_relax.Executable.load(os.fspath(path_or_bytes)))


def _torch():
    import sys
    return sys.modules.get("torch")


def _numpy():
    import sys
    return sys.modules.get("numpy")


def _exportable(x):
    """x, or a contiguous / writable / detached version DLPack can carry."""
    torch = _torch()
    if torch is not None and isinstance(x, torch.Tensor):
        if x.requires_grad:
            x = x.detach()
        if not x.is_contiguous():
            x = x.contiguous()
        return x
    np = _numpy()
    if np is not None and isinstance(x, np.ndarray):
        if not x.flags.c_contiguous or not x.flags.writeable or not x.flags.aligned:
            x = np.array(x, order="C", copy=True)
        return x
    return x


def _output_kind(args):
    torch, np = _torch(), _numpy()
    kind = "ndarray"
    for a in args:
        if torch is not None and isinstance(a, torch.Tensor):
            return "torch"
        if np is not None and isinstance(a, np.ndarray):
            kind = "numpy"
    return kind


def _convert_out(value, kind):
    if isinstance(value, NDArray):
        if kind == "torch":
            import torch.utils.dlpack
            return torch.utils.dlpack.from_dlpack(value)
        if kind == "numpy":
            import numpy
            return numpy.from_dlpack(value)
        return value
    if isinstance(value, tuple):
        return tuple(_convert_out(v, kind) for v in value)
    return value


def to_torch(value):
    """Relax results (NDArray, tuples of them) as torch tensors, without copies."""
    return _convert_out(value, "torch")


def to_numpy(value):
    """Relax results (NDArray, tuples of them) as NumPy arrays, without copies."""
    return _convert_out(value, "numpy")


class Function:
    """A VM function: call it with tensors (see the module docstring)."""

    def __init__(self, vm, name, output):
        self._vm, self.name, self._output = vm, name, output

    def __call__(self, *args):
        kind = self._output or _output_kind(args)
        result = self._vm._handle.invoke(self.name, *[_exportable(a) for a in args])
        return _convert_out(result, kind)

    def __repr__(self):
        return f"<relax.VM function {self.name}>"


class VM:
    """Runs an Executable: vm["main"](x, w) or vm.invoke("main", x, w).

    device: None (the executable's devices), "cpu", "vulkan:0", ... ; output: None (the kind of
    the inputs), "torch", "numpy" or "ndarray". The VM stays usable after an error.
    """

    def __init__(self, exe, device=None, output=None):
        if isinstance(exe, (str, os.PathLike)):
            exe = load(exe)
        self.exe = exe
        devices = []
        if device is not None:
            dev = globals()["device"](device)
            table = exe.devices()
            if not any(t == dev[0] for t, _, _ in table) and dev[0] != 1:
                have = ", ".join(f"{tgt} (device type {t})" for t, _, tgt in table)
                raise RelaxError(f"the executable was built for {have}; it cannot run on device {device}")
            devices = [(t, dev[1] if t == dev[0] else i) for t, i, _ in table]
        self._handle = _relax.VirtualMachine(exe.handle, devices)
        self._output = output

    def __getitem__(self, name):
        return Function(self, name, self._output)

    def invoke(self, name, *args):
        return self[name](*args)

    def function_names(self):
        return [f["name"] for f in self.exe.functions() if f["bytecode"]]

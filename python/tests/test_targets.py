"""Every target kind that exists, from Python: host tensors in and out of device executables,
and BasePyModule instantiated on each device (its TIR and Relax built for that target)."""
import numpy as np
import pytest

import relax

torch = pytest.importorskip("torch")

# (target, device name for VM/BasePyModule)
TARGETS = [("llvm", "cpu"), ("tir-interp", "cpu"), ("tir-interp,gpu=1", "ext_dev"),
           ("vulkan", "vulkan"), ("opencl", "opencl")]


def available(target):
    kind = target.split(",")[0]
    return kind in {t["name"] for t in relax.list_targets()}


@pytest.mark.parametrize("target,device", TARGETS)
def test_vm_on_every_target(add_module, target, device):
    if not available(target):
        pytest.skip(f"target {target} is not built")
    try:
        exe = relax.compile(add_module, target=target)
        vm = relax.VM(exe, device=device)
    except relax.RelaxError as e:
        if "no device" in str(e) or "no registered device runtime" in str(e):
            pytest.skip(f"no {device} device here: {e}")
        raise
    x = np.arange(6, dtype="float32").reshape(2, 3) - 3
    out = vm["main"](x, x)
    np.testing.assert_allclose(out, np.maximum(2 * x, 0))
    t = vm["main"](torch.from_numpy(x.copy()), torch.ones(2, 3))
    assert isinstance(t, torch.Tensor) and t.device.type == "cpu"
    torch.testing.assert_close(t, torch.relu(torch.from_numpy(x) + 1))


def test_vm_refuses_a_device_the_executable_lacks(add_module):
    with pytest.raises(relax.RelaxError, match="cannot run on device vulkan"):
        relax.VM(relax.compile(add_module, target="llvm"), device="vulkan")
    with pytest.raises(relax.RelaxError, match="unknown device 'tpu'"):
        relax.VM(relax.compile(add_module), device="tpu")


@pytest.mark.parametrize("target,device", [t for t in TARGETS if t[1] != "cpu" or t[0] == "llvm"])
def test_py_module_on_every_device(target, device):
    if not available(target):
        pytest.skip(f"target {target} is not built")
    from test_pymodule import IRModuleWithPyFunc, reference
    mod = IRModuleWithPyFunc(device=device)
    assert mod.target.split(",")[0] == target.split(",")[0]
    x, w = torch.randn(9, 16), torch.randn(16, 20)
    torch.testing.assert_close(mod.main(x, w), reference(x, w), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(mod.my_relax_func(x, w), 2 * reference(x, w), rtol=1e-5, atol=1e-5)

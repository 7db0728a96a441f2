"""Compiling and running from Python: NumPy and torch through DLPack, models, errors."""
import os

import numpy as np
import pytest

import relax
from conftest import load_pb, model_dir

torch = pytest.importorskip("torch")


def ptr(a):
    if isinstance(a, torch.Tensor):
        return a.data_ptr()
    return a.__array_interface__["data"][0]


def test_numpy_in_numpy_out(add_module, rng):
    vm = relax.VM(relax.compile(add_module))
    x, y = rng.standard_normal((2, 3), dtype="float32"), rng.standard_normal((2, 3), dtype="float32")
    out = vm["main"](x, y)
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, np.maximum(x + y, 0), rtol=1e-6)


def test_torch_in_torch_out(add_module):
    vm = relax.VM(relax.compile(add_module))
    x, y = torch.randn(2, 3), torch.randn(2, 3)
    out = vm["main"](x, y)
    assert isinstance(out, torch.Tensor)
    torch.testing.assert_close(out, torch.relu(x + y))


def test_zero_copy_both_ways(add_module):
    vm = relax.VM(relax.compile(add_module))
    xt = torch.randn(5, 4)
    out = vm["ident"](xt)  # the function returns its argument: the same memory comes back
    assert ptr(out) == ptr(xt)
    xn = np.ones((3, 4), "float32")
    assert ptr(vm["ident"](xn)) == ptr(xn)
    nd = relax.from_dlpack(xt)
    assert nd.data_ptr == ptr(xt) and nd.shape == (5, 4) and nd.dtype == "float32"
    assert ptr(torch.utils.dlpack.from_dlpack(nd)) == ptr(xt)
    assert ptr(np.from_dlpack(nd)) == ptr(xt)
    # A result computed by Relax is viewed, not copied, by both frameworks.
    res = vm["main"](relax.from_dlpack(xn[:2, :3].copy()), relax.from_dlpack(np.ones((2, 3), "float32")))
    assert isinstance(res, relax.NDArray)
    assert ptr(torch.utils.dlpack.from_dlpack(res)) == res.data_ptr == ptr(np.from_dlpack(res))


def test_results_survive_later_calls():
    """A result views memory the VM does not reuse: the next call leaves it alone."""
    d = model_dir("mlp")
    vm = relax.VM(relax.compile(os.path.join(d, "model.onnx")))
    x1, x2 = np.random.rand(1, 784).astype("float32"), np.random.rand(1, 784).astype("float32")
    y1 = vm["main"](x1)
    kept = y1.copy()
    y2 = vm["main"](x2)
    np.testing.assert_array_equal(y1, kept)
    assert not np.array_equal(y1, y2)


def test_scalars_and_tuples_cross(rng):
    mod = relax.parse("""
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), k: R.Prim("int64")) -> R.Tuple(R.Tensor((2,), "float32"), R.Prim("int64")):
        return (x, k)
""")
    vm = relax.VM(relax.compile(mod))
    x = np.ones(2, "float32")
    out = vm["main"](x, np.int64(7))
    assert isinstance(out, tuple) and out[1] == 7 and ptr(out[0]) == ptr(x)


def test_bad_shape_and_dtype_name_the_parameter(add_module):
    vm = relax.VM(relax.compile(add_module))
    good = np.ones((2, 3), "float32")
    with pytest.raises(relax.RelaxError, match=r"parameter y.*dimension 1 is 4 but 3"):
        vm["main"](good, np.ones((2, 4), "float32"))
    with pytest.raises(relax.RelaxError, match=r"parameter x.*dtype float32.*float64"):
        vm["main"](torch.ones(2, 3, dtype=torch.float64), torch.ones(2, 3))
    with pytest.raises(relax.RelaxError, match=r"takes 2 arguments \(x, y\), got 1"):
        vm["main"](good)
    with pytest.raises(relax.RelaxError, match="parameter 'y'.*cannot pass a Python object"):
        vm["main"](good, object())
    with pytest.raises(relax.RelaxError, match="no function named 'nope'"):
        vm["nope"](good)
    # The VM survives every error.
    np.testing.assert_allclose(vm["main"](good, good), 2 * good)


def test_save_load(add_module, tmp_path):
    exe = relax.compile(add_module, target="llvm")
    path = tmp_path / "m.rxe"
    exe.save(path)
    loaded = relax.load(path)
    x = np.full((2, 3), -1.0, "float32")
    np.testing.assert_array_equal(relax.VM(loaded)["main"](x, x), np.zeros((2, 3), "float32"))
    again = relax.load(exe.as_bytes())
    assert relax.VM(again, device="cpu").function_names() == ["main", "ident"]
    with pytest.raises(relax.RelaxError):
        relax.load(tmp_path / "missing.rxe")


@pytest.mark.parametrize("target", ["tir-interp", "tir-interp,gpu=1", "llvm"])
def test_saved_executable_runs_in_a_fresh_process(add_module, tmp_path, target):
    import subprocess
    import sys
    path = tmp_path / "m.rxe"
    relax.compile(add_module, target=target).save(path)
    code = ("import relax, numpy as np; x = np.ones((2, 3), 'float32');"
            f"print(relax.VM(relax.load({str(path)!r}))['main'](x, x).sum())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "12.0"


def test_interpreter_target(add_module):
    vm = relax.VM(relax.compile(add_module, target="tir-interp"))
    x = np.ones((2, 3), "float32")
    np.testing.assert_array_equal(vm["main"](x, x), 2 * x)


def test_compile_error_is_relax_error(add_module):
    with pytest.raises(relax.RelaxError, match="no-such-target"):
        relax.compile(add_module, target="no-such-target")
    with pytest.raises(relax.RelaxError):
        relax.compile(42)


@pytest.mark.parametrize("name", ["mlp", "small_cnn"])
def test_model_matches_reference(name):
    d = model_dir(name)
    x = load_pb(os.path.join(d, "test_data_set_0", "input_0.pb"))
    ref = load_pb(os.path.join(d, "test_data_set_0", "output_0.pb"))
    vm = relax.VM(relax.compile(os.path.join(d, "model.onnx")))
    out = vm["main"](x)
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-4)
    out_t = vm["main"](torch.from_numpy(x.copy()))
    assert isinstance(out_t, torch.Tensor)
    np.testing.assert_allclose(out_t.numpy(), ref, rtol=1e-3, atol=1e-4)
    # A model imported into an IRModule, printed and parsed back compiles to the same results.
    mod = relax.import_model(os.path.join(d, "model.onnx"))
    out2 = relax.VM(relax.compile(relax.parse(str(mod))))["main"](x)
    np.testing.assert_allclose(out2, ref, rtol=1e-3, atol=1e-4)

"""The Python-module design: BasePyModule with @I.py_func, R.call_py_func, call_tir /
call_dps_packed from Python, delayed compilation, and as_pyfunc."""
import pytest

import relax
from relax import BasePyModule
from relax.pyfunc_printer import with_py_func
from relax.script import I, R, T

torch = pytest.importorskip("torch")
F = torch.nn.functional


def my_softmax(x, axis, out):
    """The design's extern function: softmax of x along axis, written into out (DPS)."""
    relax.runtime.to_torch(out).copy_(torch.softmax(relax.runtime.to_torch(x), dim=axis))


relax.register_func("my_softmax", my_softmax, override=True)


@I.ir_module
class IRModuleWithPyFunc(BasePyModule):
    """Example IRModule with Python function (the design's example)."""

    @I.py_func
    def main(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        n = x.shape[0]
        lv = self.call_tir(self.matmul, [x, w], out_sinfo=R.Tensor((n, 20), "float32"))
        lv1 = F.relu(lv)
        lv2 = self.call_dps_packed("my_softmax", [lv1, 1], out_sinfo=R.Tensor((n, 20), "float32"))
        lv3 = self.my_identity_func(lv2)
        gv = lv3
        return gv

    @T.prim_func
    def matmul(
        var_A: T.handle,
        var_B: T.handle,
        var_C: T.handle,
    ):
        n = T.int32()
        A = T.match_buffer(var_A, (n, 16), "float32")
        B = T.match_buffer(var_B, (16, 20), "float32")
        C = T.match_buffer(var_C, (n, 20), "float32")
        for i, j, k in T.grid(n, 20, 16):
            with T.block("block"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @R.function
    def my_identity_func(x: R.Tensor(("n", 20), "float32")) -> R.Tensor(("n", 20), "float32"):
        return x

    @R.function
    def my_relax_func(
        x: R.Tensor(("n", 16), "float32"), w: R.Tensor((16, 20), "float32")
    ) -> R.Tensor(("n", 20), "float32"):
        cls = IRModuleWithPyFunc
        n = T.int64()
        with R.dataflow():
            lv = R.call_py_func(cls.main, (x, w), out_sinfo=R.Tensor((n, 20), "float32"))
            lv1 = R.multiply(lv, R.const(2.0, "float32"))
            R.output(lv1)
        return lv1

    @R.function
    def relax_then_py(x: R.Tensor(("n", 16), "float32"), w: R.Tensor((16, 20), "float32")) -> R.Tensor(("n", 20), "float32"):
        n = T.int64()
        with R.dataflow():
            lv = R.matmul(x, w)
            lv1 = R.call_py_func("add_one", (lv,), out_sinfo=R.Tensor((n, 20), "float32"))
            R.output(lv1)
        return lv1

    @I.py_func
    def add_one(self, x):
        return x + 1


@I.ir_module
class MyModule:
    @R.function
    def main(
        x: R.Tensor(("n", 16), "float32"), w: R.Tensor((16, 20), "float32")
    ) -> R.Tensor(("n", 20), "float32"):
        cls = MyModule
        n = T.int64()
        with R.dataflow():
            lv = R.call_tir(cls.matmul, [x, w], out_sinfo=R.Tensor((n, 20), "float32"))
            lv1 = R.nn.relu(lv)
            lv2 = R.call_dps_packed(
                "my_softmax", [lv1, R.prim_value(1)], out_sinfo=R.Tensor((n, 20), "float32")
            )
            gv = lv2
            R.output(gv)
        return gv

    @T.prim_func
    def matmul(var_A: T.handle, var_B: T.handle, var_C: T.handle):
        n = T.int32()
        A = T.match_buffer(var_A, (n, 16), "float32")
        B = T.match_buffer(var_B, (16, 20), "float32")
        C = T.match_buffer(var_C, (n, 20), "float32")
        for i, j, k in T.grid(n, 20, 16):
            with T.block("block"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def reference(x, w):
    return torch.softmax(F.relu(x @ w), dim=1)


@pytest.fixture(scope="module")
def py_mod():
    return IRModuleWithPyFunc(device="cpu")  # compiles the TIR and Relax functions now


def test_module_keeps_py_funcs_as_source():
    mod = IRModuleWithPyFunc.ir_module
    assert mod.function_names() == ["matmul", "my_identity_func", "my_relax_func", "relax_then_py"]
    assert [s.splitlines()[1].split("(")[0] for s in mod.py_funcs] == ["def main", "def add_one"]
    text = str(mod)
    assert "@I.py_func\n    def main(self, x: torch.Tensor" in text
    assert 'R.call_py_func("main", (x, w), out_sinfo=' in text
    again = relax.parse(text)
    assert relax.structural_equal(mod, again) and str(again) == text


@pytest.mark.parametrize("n", [1, 233])
def test_design_example_matches_pytorch(py_mod, n):
    x, w = torch.randn(n, 16), torch.randn(16, 20)
    out = py_mod.main(x, w)
    assert isinstance(out, torch.Tensor) and out.shape == (n, 20)
    torch.testing.assert_close(out, reference(x, w), rtol=1e-5, atol=1e-6)


def test_relax_calls_py_func(py_mod):
    x, w = torch.randn(7, 16), torch.randn(16, 20)
    torch.testing.assert_close(py_mod.my_relax_func(x, w), 2 * reference(x, w), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(py_mod.relax_then_py(x, w), x @ w + 1, rtol=1e-5, atol=1e-5)


def test_py_func_calls_tir_and_relax(py_mod):
    x, w = torch.randn(3, 16), torch.randn(16, 20)
    torch.testing.assert_close(py_mod.call_tir(py_mod.matmul, [x, w], out_sinfo=R.Tensor((3, 20), "float32")),
                               x @ w, rtol=1e-5, atol=1e-5)
    y = torch.randn(4, 20)
    out = py_mod.my_identity_func(y)
    assert out.data_ptr() == y.data_ptr()  # Relax returned the very tensor, through DLPack


def test_errors_name_the_function_and_vm_survives(py_mod):
    x, w = torch.randn(2, 16), torch.randn(16, 20)
    with pytest.raises(relax.RelaxError, match=r"parameter w.*dimension 0 is 15 but 16"):
        py_mod.my_relax_func(x, torch.randn(15, 20))
    with pytest.raises(relax.RelaxError, match="parameter x.*float32.*float64"):
        py_mod.my_identity_func(torch.zeros(2, 20, dtype=torch.float64))
    with pytest.raises(relax.RelaxError, match="'nope' is not a PrimFunc"):
        py_mod.call_tir("nope", [x], out_sinfo=R.Tensor((2, 20), "float32"))

    broken = BasePyModule.from_module(with_py_func(
        IRModuleWithPyFunc.ir_module, "@I.py_func\ndef add_one(self, x):\n    raise ValueError('py_func went wrong')\n"))
    with pytest.raises(relax.RelaxError, match="Python function 'add_one' raised ValueError: py_func went wrong"):
        broken.relax_then_py(x, w)
    torch.testing.assert_close(py_mod.main(x, w), reference(x, w), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(broken.my_identity_func(y := torch.ones(2, 20)), y)  # it survives too


def test_call_py_func_without_the_python_side():
    mod = relax.parse("""
@I.ir_module
class M:
    @R.function
    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = R.call_py_func("nothere", (x,), out_sinfo=R.Tensor((2,), "float32"))
        return y
""")
    with pytest.raises(relax.RelaxError, match="'relax.py_func.nothere' is not defined"):
        relax.VM(relax.compile(mod))


def test_as_pyfunc_of_the_relax_twin_runs():
    source = MyModule.as_pyfunc("main")
    assert source.startswith("@I.py_func\ndef main(self, x, w):\n    n = x.shape[0]\n")
    assert "self.call_tir(self.matmul, [x, w]" in source and "F.relu(lv)" in source
    assert 'self.call_dps_packed(\'my_softmax\', [lv1, 1]' in source
    inst = BasePyModule.from_module(with_py_func(MyModule, source))
    # The twin compiled as a whole (with n declared int64: the kernel lowering rejects the
    # design's int32 n beside int64 constants, see pymodule._with_tir_wrappers).
    vm = relax.VM(relax.compile(relax.parse(str(MyModule).replace("T.int32()", "T.int64()"))), output="torch")
    for n in (1, 33):
        x, w = torch.randn(n, 16), torch.randn(16, 20)
        torch.testing.assert_close(inst.main(x, w), reference(x, w), rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(vm["main"](x, w), reference(x, w), rtol=1e-5, atol=1e-6)


def test_as_pyfunc_at_later_stages():
    """After legalize-ops every op is a call_tir of a generated PrimFunc: the printed function
    calls them through the compiled module."""
    text = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), "float32"), y: R.Tensor((8, 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        with R.dataflow():
            a = R.matmul(x, y)
            b = R.nn.relu(a)
            c = R.nn.softmax(b, axis=1)
            R.output(c)
        return c
"""
    mod = relax.parse(text)
    x, y = torch.randn(5, 8), torch.randn(8, 4)
    want = torch.softmax(torch.relu(x @ y), dim=1)
    early = BasePyModule.from_module(with_py_func(mod, mod.as_pyfunc("main")))
    torch.testing.assert_close(early.main(x, y), want, rtol=1e-5, atol=1e-6)
    lowered = relax.transform.run(mod, "normalize,legalize-ops")
    source = lowered.as_pyfunc("main")
    assert "self.call_tir(" in source and "F.relu" not in source
    late = BasePyModule.from_module(with_py_func(lowered, source))
    torch.testing.assert_close(late.main(x, y), want, rtol=1e-5, atol=1e-6)
    # After fusion: the fused PrimFuncs are called.
    fused = relax.transform.run(mod, "normalize,legalize-ops,annotate-op-pattern,fuse-ops,fuse-tir")
    source = fused.as_pyfunc("main")
    assert "self.call_tir(self.fused_matmul_relu, [x, y]" in source, source
    torch.testing.assert_close(BasePyModule.from_module(with_py_func(fused, source)).main(x, y), want,
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(relax.RelaxError, match="as_pyfunc of 'main': op relax.floor has no PyTorch mapping"):
        relax.parse(text.replace("R.nn.softmax(b, axis=1)", "R.floor(b)")).as_pyfunc("main")


@pytest.mark.parametrize("name", ["mlp", "small_cnn"])
def test_as_pyfunc_of_a_model_matches_its_reference(name):
    """An imported ONNX model printed as Python over PyTorch (weights as torch constants) runs
    with PyTorch alone and matches the model's reference output."""
    import os
    from conftest import load_pb, model_dir
    d = model_dir(name)
    mod = relax.import_model(os.path.join(d, "model.onnx"))
    source = mod.as_pyfunc("main")
    inst = BasePyModule.from_module(with_py_func(mod, source))
    assert inst.relax_vm is None  # nothing left to compile: the model is all Python now
    x = torch.from_numpy(load_pb(os.path.join(d, "test_data_set_0", "input_0.pb")).copy())
    ref = load_pb(os.path.join(d, "test_data_set_0", "output_0.pb"))
    torch.testing.assert_close(inst.main(x), torch.from_numpy(ref.copy()), rtol=1e-3, atol=1e-4)

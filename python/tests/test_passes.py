"""Passes written in Python: visitors, mutators, registration, pipelines and YAML."""
import numpy as np
import pytest

import relax
from relax import ir

MOD = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        R.func_attr({"global_symbol": "main"})
        with R.dataflow():
            a = R.add(x, y)
            b = R.nn.relu(a)
            c = R.nn.relu(b)
            d = R.multiply(c, c)
            R.output(d)
        return d
"""


class OpCounter(ir.ExprVisitor):
    """Analysis: how many calls of each op (the tutorial's visitor workflow)."""

    def __init__(self):
        self.counts = {}

    def visit_call_(self, call):
        if call.op.kind == "Op":
            self.counts[call.op.name] = self.counts.get(call.op.name, 0) + 1
        super().visit_call_(call)


class DoubleReluToRelu(ir.ExprMutator):
    """relu(relu(v)) -> relu(v), looking through the binding of the argument."""

    def visit_call_(self, call):
        call = super().visit_call_(call)
        if call.kind == "Call" and call.op.kind == "Op" and call.op.name == "relax.nn.relu":
            inner = self.lookup_binding(call.args[0])
            if inner is not None and inner.kind == "Call" and inner.op.name == "relax.nn.relu":
                return call.args[0]  # already relu'd
        return call


class MultiplyToAdd(ir.ExprMutator):
    """multiply(a, a) -> add(a, a) (a rewrite that changes the results: the tests see it)."""

    def visit_call_(self, call):
        call = super().visit_call_(call)
        if call.kind == "Call" and call.op.kind == "Op" and call.op.name == "relax.multiply":
            return ir.call("add", call.args)
        return call


class PropagateConstants(ir.ExprMutator):
    """The tutorial's constant folding step: a use of a variable bound to a constant becomes
    the constant."""

    def visit_var_(self, var):
        value = self.lookup_binding(var)
        return value if value is not None and value.kind == "Constant" else super().visit_var_(var)

    visit_dataflow_var_ = visit_var_


def run(mod, x, y):
    return relax.VM(relax.compile(mod))["main"](x, y)


def test_visitor_counts_ops():
    v = OpCounter()
    v.visit_module(relax.parse(MOD))
    assert v.counts == {"relax.add": 1, "relax.nn.relu": 2, "relax.multiply": 1}
    seen = []
    ir.post_order_visit(ir.get_function(relax.parse(MOD), "main"), lambda e: seen.append(e.kind))
    assert seen[-1] == "Function" and "Call" in seen


def test_node_fields():
    f = relax.parse(MOD)["main"]
    assert [p.name for p in f.params] == ["x", "y"]
    assert f.attrs["global_symbol"] == "main" and f.is_pure
    block = f.body.blocks[0]
    assert block.is_dataflow and [b.var.name for b in block.bindings] == ["a", "b", "c", "d"]
    assert block.bindings[0].value.op.name == "relax.add"
    assert 'R.Tensor((2, 3), dtype="float32")' == block.bindings[0].var.struct_info
    with pytest.raises(relax.RelaxError, match="a Var has no field 'args'"):
        f.params[0].args


def test_mutator_rewrites_and_normalises():
    mod = relax.parse(MOD)
    out = DoubleReluToRelu().visit_module(mod)
    text = str(out)
    assert text.count("R.nn.relu") == 1, text
    x, y = np.random.rand(2, 3).astype("float32") - 0.5, np.random.rand(2, 3).astype("float32")
    np.testing.assert_allclose(run(out, x, y), run(mod, x, y), rtol=1e-6)
    # Nothing to rewrite: the module comes back as it was.
    assert relax.structural_equal(DoubleReluToRelu().visit_module(out), out)


def test_mutator_over_variable_uses():
    mod = relax.parse("""
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        with R.dataflow():
            c = R.const([1.5, 2.5], "float32")
            y = R.add(x, c)
            R.output(y)
        return y
""")
    out = PropagateConstants().visit_module(mod)
    assert "R.add(x, R.const([1.5, 2.5]" in str(out), str(out)
    out = relax.transform.run(out, "dead-code-elimination")
    assert "c: " not in str(out)
    x = np.zeros(2, "float32")
    np.testing.assert_array_equal(relax.VM(relax.compile(out))["main"](x), [1.5, 2.5])


def test_function_pass_in_pipeline_line_and_yaml(tmp_path):
    relax.transform.register_pass("py-mul-to-add", lambda f: MultiplyToAdd().visit_expr(f),
                                  granularity="function", summary="multiply(a, a) -> add(a, a)")
    try:
        names = {p["name"]: p for p in relax.transform.list_passes()}
        assert names["py-mul-to-add"]["plugin"] == "python"
        out = relax.transform.run(relax.parse(MOD), "normalize,py-mul-to-add")
        assert "R.multiply" not in str(out) and str(out).count("R.add") == 2
        yaml = tmp_path / "p.yaml"
        yaml.write_text("passes:\n  - normalize\n  - py-mul-to-add\n")
        assert relax.structural_equal(relax.transform.run(relax.parse(MOD), yaml), out)
        # Used by a whole compile: the default pipeline's passes plus the Python one.
        x, y = np.ones((2, 3), "float32"), np.ones((2, 3), "float32")
        exe = relax.compile(relax.parse(MOD), pipeline="normalize,py-mul-to-add")
        np.testing.assert_allclose(relax.VM(exe)["main"](x, y), np.full((2, 3), 4.0, "float32"))
    finally:
        assert relax.transform.unregister_pass("py-mul-to-add")


def test_module_pass_with_options(tmp_path):
    calls = []

    @relax.transform.module_pass("py-tag", options={"times": 1})
    def tag(mod, options):
        """Counts its runs (a module pass with an option)."""
        calls.append(options["times"])
        return DoubleReluToRelu().visit_module(mod)

    try:
        out = relax.transform.run(relax.parse(MOD), "py-tag{times=3}")
        assert calls == [3] and str(out).count("R.nn.relu") == 1
        yaml = tmp_path / "p.yaml"
        yaml.write_text("passes:\n  - py-tag: {times: 5}\ninstruments:\n  time-passes: true\n")
        out, report = relax.transform.run(relax.parse(MOD), yaml, report=True)
        assert calls == [3, 5] and "py-tag" in report["timing"]
        with pytest.raises(relax.RelaxError, match="py-tag"):
            relax.transform.register_pass("py-tag", lambda m: m)  # the name is taken
    finally:
        relax.transform.unregister_pass("py-tag")


def test_python_pass_errors():
    def boom(mod):
        raise ValueError("no good")

    relax.transform.register_pass("py-boom", boom)
    relax.transform.register_pass("py-not-a-module", lambda mod: 42)
    try:
        with pytest.raises(relax.RelaxError, match=r"Python pass 'py-boom' raised ValueError: no good"):
            relax.transform.run(relax.parse(MOD), "py-boom")
        with pytest.raises(relax.RelaxError, match="must return a relax.IRModule, got a int"):
            relax.transform.run(relax.parse(MOD), "py-not-a-module")
    finally:
        relax.transform.unregister_pass("py-boom")
        relax.transform.unregister_pass("py-not-a-module")
    with pytest.raises(relax.RelaxError, match="kebab-case"):
        relax.transform.register_pass("Bad_Name", lambda m: m)
    with pytest.raises(relax.RelaxError, match="granularity 'block'"):
        relax.transform.register_pass("py-x", lambda m: m, granularity="block")


def test_mutator_errors():
    class Raising(ir.ExprMutator):
        def visit_call_(self, call):
            raise KeyError("boom")

    class Wrong(ir.ExprMutator):
        def visit_call_(self, call):
            return 3

    with pytest.raises(KeyError, match="boom"):  # a Python exception comes through as itself
        Raising().visit_module(relax.parse(MOD))
    with pytest.raises(relax.RelaxError, match="the result of visit_call_: expected a relax expression, got a Python int"):
        Wrong().visit_module(relax.parse(MOD))
    with pytest.raises(relax.RelaxError, match="unknown op|no op|not registered|relax.nope"):
        ir.call("nope", [])

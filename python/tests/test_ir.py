"""The IR from Python: parse, print, structural equality, pipelines, listings, errors."""
import os

import pytest

import relax
from conftest import ADD_MODULE

DCE_INPUT = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.multiply(a, a)
            R.output(a)
        return a
"""


def test_parse_print_roundtrip(add_module):
    text = str(add_module)
    assert "def main" in text and "R.nn.relu" in text
    again = relax.parse(text)
    assert relax.structural_equal(add_module, again)
    assert add_module.function_names() == ["main", "ident"]
    assert "main" in add_module and len(add_module) == 2


def test_structural_equal_differs(add_module):
    other = relax.parse(ADD_MODULE.replace("R.nn.relu", "R.nn.gelu"))
    assert not relax.structural_equal(add_module, other)


def test_parse_error_is_relax_error():
    with pytest.raises(relax.RelaxError) as info:
        relax.parse("@I.ir_module\nclass M:\n    @R.function\n    def f(x: R.Tensor((2,), \"float32\")):\n        return R.nn.relu(y)\n",
                    "bad.rx")
    assert isinstance(info.value, Exception)
    assert "bad.rx:5" in str(info.value) and "y" in str(info.value)


def test_transform_run_line():
    mod = relax.parse(DCE_INPUT)
    out = relax.transform.run(mod, "normalize,dead-code-elimination")
    assert "R.multiply" not in str(out)
    assert "R.multiply" in str(mod)  # the input is unchanged


def test_transform_run_yaml(tmp_path):
    yaml = tmp_path / "p.yaml"
    yaml.write_text("passes:\n  - normalize\n  - dead-code-elimination\n")
    out, report = relax.transform.run(relax.parse(DCE_INPUT), yaml, time_passes=True, report=True)
    assert "R.multiply" not in str(out)
    assert "dead-code-elimination" in report["pipeline"]
    assert "timing" in report


def test_transform_dump_instrument(tmp_path):
    relax.transform.run(relax.parse(DCE_INPUT), "normalize,dead-code-elimination",
                        dump_ir_after=["dead-code-elimination"], dump_dir=str(tmp_path))
    assert os.listdir(tmp_path)


def test_unknown_pass_names_it():
    with pytest.raises(relax.RelaxError, match="no-such-pass"):
        relax.transform.run(relax.parse(DCE_INPUT), "normalize,no-such-pass")


def test_listings():
    names = [p["name"] for p in relax.transform.list_passes()]
    assert "normalize" in names and "fuse-ops" in names
    assert "llvm" in [t["name"] for t in relax.list_targets()]
    assert any(p["name"] == "llvm" for p in relax.list_plugins())
    assert relax.list_devices()[0]["device"] == "cpu:0"
    assert "default" in relax.transform.builtin_pipelines()
    assert relax.transform.pipeline_passes("normalize,fuse-ops")[0] == "normalize"


def test_load_plugin():
    relax.load_plugin("cleanup")
    assert any(p["name"] == "cleanup" and p["loaded"] for p in relax.list_plugins())
    with pytest.raises(relax.RelaxError, match="plugin 'nope' not found; searched: .*librelax-nope.so"):
        relax.load_plugin("nope")

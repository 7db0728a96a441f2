"""Shared fixtures of the Python package tests: the model zoo and small modules."""
import os

import numpy as np
import pytest

MODELS = os.environ.get("RELAX_TEST_MODELS") or os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "shared", "models", "test")


def model_dir(name):
    path = os.path.join(MODELS, name)
    if not os.path.exists(os.path.join(path, "model.onnx")):
        pytest.skip(f"model {name} not found under {MODELS}")
    return path


def load_pb(path):
    """A tensor of an ONNX test data set as a NumPy array."""
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper
    return numpy_helper.to_array(onnx.load_tensor(path))


ADD_MODULE = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            a = R.add(x, y)
            b = R.nn.relu(a)
            R.output(b)
        return b

    @R.function
    def ident(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        R.func_attr({"global_symbol": "ident"})
        return x
"""


@pytest.fixture
def add_module():
    import relax
    return relax.parse(ADD_MODULE)


@pytest.fixture
def rng():
    return np.random.default_rng(0)

#!/usr/bin/python3
"""Writes the small ONNX models of the index-check tests (index_checks_test.cc): each gather or
scatter once with its indices a graph input (checked at run time) and once with constant
out-of-range indices (refused at import). Run with Debian's python3-onnx:
    /usr/bin/python3 tests/unit/reliability/data/make_models.py"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F, I = TensorProto.FLOAT, TensorProto.INT64


def save(name, nodes, inputs, outputs, inits):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.save(m, os.path.join(HERE, name + ".onnx"))


def vi(name, t, shape):
    return helper.make_tensor_value_info(name, t, shape)


data = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(4, 3), "data")
# Run-time indices.
save("gather_rt", [helper.make_node("Gather", ["data", "i"], ["y"], name="gather_rows")],
     [vi("i", I, [2])], [vi("y", F, [2, 3])], [data])
save("gather_elements_rt",
     [helper.make_node("GatherElements", ["data", "i"], ["y"], name="ge", axis=1)],
     [vi("i", I, [4, 2])], [vi("y", F, [4, 2])], [data])
save("gather_nd_rt", [helper.make_node("GatherND", ["data", "i"], ["y"], name="gnd")],
     [vi("i", I, [2, 2])], [vi("y", F, [2])], [data])
save("scatter_elements_rt",
     [helper.make_node("ScatterElements", ["data", "i", "u"], ["y"], name="se", axis=0)],
     [vi("i", I, [1, 3]), vi("u", F, [1, 3])], [vi("y", F, [4, 3])], [data])
save("scatter_nd_rt", [helper.make_node("ScatterND", ["data", "i", "u"], ["y"], name="snd")],
     [vi("i", I, [1, 1]), vi("u", F, [1, 3])], [vi("y", F, [4, 3])], [data])
# Constant out-of-range indices.
save("gather_elements_const",
     [helper.make_node("GatherElements", ["data", "i"], ["y"], name="ge_const", axis=1)],
     [], [vi("y", F, [4, 1])],
     [data, numpy_helper.from_array(np.array([[0], [1], [-4], [2]], np.int64), "i")])
save("gather_nd_const", [helper.make_node("GatherND", ["data", "i"], ["y"], name="gnd_const")],
     [], [vi("y", F, [1])], [data, numpy_helper.from_array(np.array([[1, 3]], np.int64), "i")])

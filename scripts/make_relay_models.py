#!/usr/bin/python3
"""Writes the Relay test models of tests/relay/models from fixed-seed weights.

Each model is written twice from the same weights: as Relay text (format 0.0.5) with its
weights in a `#[metadata]` section, the way TVM's `astext()` writes them (a JSON object graph
whose relay.Constant nodes point at base64 NDArrays in TVM's save format), and as an ONNX
model. tests/unit/relay/relay_models_test.cc compiles and runs both through relax-driver and
compares the outputs. Also writes tests/relay/corpus/metadata.relay (a small program using
meta[relay.Constant]).

  /usr/bin/python3 scripts/make_relay_models.py [OUT_DIR]   (default: tests/relay/models)

Needs numpy and onnx (Debian: python3-numpy, python3-onnx).
"""
import base64
import json
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---- TVM's NDArray save format and the metadata JSON.

_MAGIC = 0xDD5E40F096B4A13F
_DTYPE_CODES = {"int": 0, "uint": 1, "float": 2}


def ndarray_blob(a):
    """The bytes TVM's NDArray::Save writes for `a` (CPU device)."""
    a = np.ascontiguousarray(a)
    kind = {"i": "int", "u": "uint", "f": "float", "b": "uint"}[a.dtype.kind]
    bits = 1 if a.dtype == np.bool_ else a.dtype.itemsize * 8
    out = struct.pack("<QQiii", _MAGIC, 0, 1, 0, a.ndim)
    out += struct.pack("<BBH", _DTYPE_CODES[kind], bits, 1)
    out += struct.pack("<%dq" % a.ndim, *a.shape)
    data = a.tobytes()
    out += struct.pack("<q", len(data)) + data
    return out


def metadata_section(arrays):
    """The `#[metadata]` JSON for relay.Constant values `arrays` (in meta index order)."""
    nodes = [{"type_key": ""},
             {"type_key": "Map", "keys": ["relay.Constant"], "data": [2]},
             {"type_key": "Array", "data": [3 + k for k in range(len(arrays))]}]
    for k in range(len(arrays)):
        nodes.append({"type_key": "relay.Constant",
                      "attrs": {"_checked_type_": "0", "data": str(k), "span": "0",
                                "virtual_device_": "0"}})
    doc = {"root": 1, "nodes": nodes,
           "b64ndarrays": [base64.b64encode(ndarray_blob(a)).decode() for a in arrays],
           "attrs": {"tvm_version": "0.8.0"}}
    return "#[metadata]\n" + json.dumps(doc, indent=2) + "\n"


def ty(a):
    return "Tensor[(%s), %s]" % (", ".join(str(d) for d in a.shape), a.dtype)


class RelayWriter:
    """Builds the body of a Relay def in the graph form (%0 = ...;) with meta constants."""

    def __init__(self):
        self.lines = []
        self.consts = []
        self.n = 0

    def const(self, a):
        self.consts.append(a.astype(np.float32))
        return "meta[relay.Constant][%d] /* ty=%s */" % (len(self.consts) - 1, ty(self.consts[-1]))

    def bind(self, text):
        self.lines.append("  %%%d = %s;" % (self.n, text))
        self.n += 1
        return "%%%d" % (self.n - 1)

    def program(self, params, ret):
        body = "\n".join(self.lines[:-1])
        last = self.lines[-1].split(" = ", 1)[1].rstrip(";")
        return ('#[version = "0.0.5"]\ndef @main(%s) -> %s {\n%s\n  %s\n}\n\n'
                % (params, ret, body, last)) + metadata_section(self.consts)


# ---- The models.


def resnet_stage(rng):
    """Two residual blocks (the second downsamples), global pool and a classifier."""
    c, h = 8, 16
    x_shape = (1, c, h, h)
    w = RelayWriter()
    nodes, inits = [], []

    def init(name, a):
        inits.append(numpy_helper.from_array(a.astype(np.float32), name))
        return name

    def conv_bn(x_relay, x_onnx, cin, cout, k, stride, tag):
        wt = rng.standard_normal((cout, cin, k, k)).astype(np.float32) * np.float32(0.3)
        gamma = rng.uniform(0.5, 1.5, cout).astype(np.float32)
        beta = rng.standard_normal(cout).astype(np.float32) * np.float32(0.1)
        mean = rng.standard_normal(cout).astype(np.float32) * np.float32(0.1)
        var = rng.uniform(0.5, 1.5, cout).astype(np.float32)
        p = k // 2
        conv = w.bind("nn.conv2d(%s, %s, strides=[%d, %d], padding=[%d, %d, %d, %d], channels=%d, "
                      "kernel_size=[%d, %d])" % (x_relay, w.const(wt), stride, stride, p, p, p, p, cout, k, k))
        bn = w.bind("nn.batch_norm(%s, %s, %s, %s, %s, epsilon=1e-05f)"
                    % (conv, w.const(gamma), w.const(beta), w.const(mean), w.const(var)))
        out = w.bind("%s.0" % bn)
        nodes.append(helper.make_node("Conv", [x_onnx, init(tag + "_w", wt)], [tag + "_c"],
                                      strides=[stride, stride], pads=[p, p, p, p], kernel_shape=[k, k]))
        nodes.append(helper.make_node("BatchNormalization",
                                      [tag + "_c", init(tag + "_g", gamma), init(tag + "_b", beta),
                                       init(tag + "_m", mean), init(tag + "_v", var)], [tag + "_bn"],
                                      epsilon=1e-5))
        return out, tag + "_bn"

    def block(x_relay, x_onnx, cin, cout, stride, tag):
        a, ao = conv_bn(x_relay, x_onnx, cin, cout, 3, stride, tag + "a")
        a = w.bind("nn.relu(%s)" % a)
        nodes.append(helper.make_node("Relu", [ao], [tag + "_r"]))
        b, bo = conv_bn(a, tag + "_r", cout, cout, 3, 1, tag + "b")
        if stride != 1 or cin != cout:
            s, so = conv_bn(x_relay, x_onnx, cin, cout, 1, stride, tag + "s")
        else:
            s, so = x_relay, x_onnx
        y = w.bind("add(%s, %s)" % (b, s))
        y = w.bind("nn.relu(%s)" % y)
        nodes.append(helper.make_node("Add", [bo, so], [tag + "_add"]))
        nodes.append(helper.make_node("Relu", [tag + "_add"], [tag + "_out"]))
        return y, tag + "_out"

    y, yo = block("%x", "x", c, c, 1, "b1")
    y, yo = block(y, yo, c, 2 * c, 2, "b2")
    y = w.bind("nn.global_avg_pool2d(%s)" % y)
    y = w.bind("nn.batch_flatten(%s)" % y)
    fc = rng.standard_normal((10, 2 * c)).astype(np.float32) * np.float32(0.2)
    fb = rng.standard_normal(10).astype(np.float32) * np.float32(0.1)
    y = w.bind("nn.dense(%s, %s, units=10)" % (y, w.const(fc)))
    w.bind("nn.bias_add(%s, %s)" % (y, w.const(fb)))
    nodes.append(helper.make_node("GlobalAveragePool", [yo], ["gap"]))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"]))
    nodes.append(helper.make_node("Gemm", ["flat", init("fc_w", fc), init("fc_b", fb)], ["y"], transB=1))
    relay = w.program("%%x: %s" % ty(np.zeros(x_shape, np.float32)), "Tensor[(1, 10), float32]")
    graph = helper.make_graph(nodes, "resnet_stage",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, (1, 10))], inits)
    return relay, graph, x_shape


def transformer_block(rng):
    """Multi-head self-attention, residual + layer norm, a ReLU feed-forward, residual + norm."""
    s, d, heads, ffn = 8, 32, 4, 64
    dk = d // heads
    w = RelayWriter()
    nodes, inits = [], []

    def init(name, a):
        inits.append(numpy_helper.from_array(np.asarray(a, np.float32), name))
        return name

    def linear(x_relay, x_onnx, din, dout, tag):
        wt = rng.standard_normal((dout, din)).astype(np.float32) * np.float32(1 / np.sqrt(din))
        b = rng.standard_normal(dout).astype(np.float32) * np.float32(0.1)
        y = w.bind("nn.dense(%s, %s, units=%d)" % (x_relay, w.const(wt), dout))
        y = w.bind("add(%s, %s)" % (y, w.const(b)))
        nodes.append(helper.make_node("MatMul", [x_onnx, init(tag + "_w", wt.T)], [tag + "_mm"]))
        nodes.append(helper.make_node("Add", [tag + "_mm", init(tag + "_b", b)], [tag]))
        return y, tag

    def heads_first(x_relay, x_onnx, tag, last_two_swapped=False):
        y = w.bind("reshape(%s, newshape=[%d, %d, %d])" % (x_relay, s, heads, dk))
        perm = [1, 2, 0] if last_two_swapped else [1, 0, 2]
        y = w.bind("transpose(%s, axes=%s)" % (y, perm))
        nodes.append(helper.make_node("Reshape", [x_onnx, init(tag + "_shape", np.array([s, heads, dk]))],
                                      [tag + "_r"]))
        inits[-1] = numpy_helper.from_array(np.array([s, heads, dk], np.int64), tag + "_shape")
        nodes.append(helper.make_node("Transpose", [tag + "_r"], [tag + "_t"], perm=perm))
        return y, tag + "_t"

    def layer_norm(x_relay, x_onnx, tag):
        g = rng.uniform(0.5, 1.5, d).astype(np.float32)
        b = rng.standard_normal(d).astype(np.float32) * np.float32(0.1)
        y = w.bind("nn.layer_norm(%s, %s, %s, axis=-1, epsilon=1e-05f)" % (x_relay, w.const(g), w.const(b)))
        nodes.append(helper.make_node("LayerNormalization", [x_onnx, init(tag + "_g", g), init(tag + "_b", b)],
                                      [tag], axis=-1, epsilon=1e-5))
        return y, tag

    q, qo = linear("%x", "x", d, d, "q")
    k, ko = linear("%x", "x", d, d, "k")
    v, vo = linear("%x", "x", d, d, "v")
    q, qo = heads_first(q, qo, "qh")
    k, ko = heads_first(k, ko, "kh")
    vt, vto = heads_first(v, vo, "vh", last_two_swapped=True)  # (heads, dk, s)
    scores = w.bind("nn.batch_matmul(%s, %s, transpose_b=True)" % (q, k))
    scores = w.bind("multiply(%s, %sf)" % (scores, repr(float(1 / np.sqrt(dk)))))
    probs = w.bind("nn.softmax(%s, axis=-1)" % scores)
    ctx = w.bind("nn.batch_matmul(%s, %s, transpose_b=True)" % (probs, vt))  # probs @ vt^T = probs @ v
    ctx = w.bind("transpose(%s, axes=[1, 0, 2])" % ctx)
    ctx = w.bind("reshape(%s, newshape=[%d, %d])" % (ctx, s, d))
    nodes.append(helper.make_node("Transpose", [ko], ["kT"], perm=[0, 2, 1]))
    nodes.append(helper.make_node("MatMul", [qo, "kT"], ["scores"]))
    nodes.append(helper.make_node("Mul", ["scores", init("scale", np.array(1 / np.sqrt(dk), np.float32))], ["scaled"]))
    nodes.append(helper.make_node("Softmax", ["scaled"], ["probs"], axis=-1))
    nodes.append(helper.make_node("Transpose", [vto], ["vv"], perm=[0, 2, 1]))
    nodes.append(helper.make_node("MatMul", ["probs", "vv"], ["ctx"]))
    nodes.append(helper.make_node("Transpose", ["ctx"], ["ctx_t"], perm=[1, 0, 2]))
    nodes.append(helper.make_node("Reshape", ["ctx_t", "ctx_shape"], ["ctx_r"]))
    inits.append(numpy_helper.from_array(np.array([s, d], np.int64), "ctx_shape"))
    o, oo = linear(ctx, "ctx_r", d, d, "o")
    r1 = w.bind("add(%x, " + o + ")")
    nodes.append(helper.make_node("Add", ["x", oo], ["r1"]))
    n1, n1o = layer_norm(r1, "r1", "n1")
    f, fo = linear(n1, n1o, d, ffn, "f1")
    f = w.bind("nn.relu(%s)" % f)
    nodes.append(helper.make_node("Relu", [fo], ["f1r"]))
    f, fo = linear(f, "f1r", ffn, d, "f2")
    r2 = w.bind("add(%s, %s)" % (n1, f))
    nodes.append(helper.make_node("Add", [n1o, fo], ["r2"]))
    layer_norm(r2, "r2", "y")
    relay = w.program("%%x: Tensor[(%d, %d), float32]" % (s, d), "Tensor[(%d, %d), float32]" % (s, d))
    graph = helper.make_graph(nodes, "transformer_block",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, (s, d))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, (s, d))], inits)
    return relay, graph, (s, d)


def corpus_metadata():
    """A small program whose weights are meta constants (tests/relay/corpus/metadata.relay)."""
    w = np.arange(6, dtype=np.float32).reshape(2, 3) / np.float32(4)
    b = np.array([1, -1], np.float32)
    idx = np.array([1, 0], np.int64)
    return ('#[version = "0.0.5"]\n'
            "// Weights from the #[metadata] section: a float matrix, a vector, int64 indices.\n"
            "def @main(%x: Tensor[(1, 3), float32]) -> Tensor[(1, 2), float32] {\n"
            "  %0 = nn.dense(%x, meta[relay.Constant][0] /* ty=Tensor[(2, 3), float32] */, units=2);\n"
            "  %1 = add(%0, meta[relay.Constant][1] /* ty=Tensor[(2), float32] */);\n"
            "  take(%1, meta[relay.Constant][2] /* ty=Tensor[(2), int64] */, axis=1)\n"
            "}\n\n" + metadata_section([w, b, idx]))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "relay", "models")
    os.makedirs(out, exist_ok=True)
    for name, make, seed in (("resnet_stage", resnet_stage, 1), ("transformer_block", transformer_block, 2)):
        rng = np.random.default_rng(seed)
        relay, graph, x_shape = make(rng)
        with open(os.path.join(out, name + ".relay"), "w") as f:
            f.write(relay)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out, name + ".onnx"))
        np.save(os.path.join(out, name + "_input.npy"),
                np.random.default_rng(seed + 100).standard_normal(x_shape).astype(np.float32))
    corpus = os.path.join(ROOT, "tests", "relay", "corpus")
    os.makedirs(corpus, exist_ok=True)
    with open(os.path.join(corpus, "metadata.relay"), "w") as f:
        f.write(corpus_metadata())


if __name__ == "__main__":
    main()

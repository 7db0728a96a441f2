#!/usr/bin/python3
"""Builds the ONNX compatibility cases of tests/unit/onnx/onnx_compat_test.cc: small models with
the dynamic code real exporters write, in the ONNX backend-test layout (CASE/model.onnx,
CASE/test_data_set_N/input_K.pb), then asks ONNX Runtime for the reference outputs
(../shared/bench/ort_ref.sh writes test_data_set_N/output_K.pb).

    /usr/bin/python3 tests/data/onnx_compat/make.py [OUTDIR]   (default: this directory)

Cases (each with one or more data sets, several input sizes where the dims are symbolic):
  if_cond_rank1, if_cond_rank2   If on a one-element condition of shape [1] / [1, 1]
  fpad_chain                     Pad whose pads come out of PyTorch's F.pad export chain
                                 (ConstantOfShape -> Concat -> Reshape -> Slice -> Transpose ->
                                 Reshape -> Cast, all constants)
  fpad_chain_in_if               the same chain inside an If branch
  pads_from_shape                pads up to a multiple of 8 computed from the input's shape
  pads_from_shape_in_if          the same inside an If branch
  resize_symbolic                Resize with scales, and with sizes from Shape, on symbolic H, W
  resize_sizes_in_float          Resize to sizes computed in float from the shape (F.interpolate)
  slice_from_shape               Slice whose end is computed from the input's shape
  slice_runtime                  Slice whose start is a graph input (known only at run time)
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_REF = os.path.join(HERE, "..", "..", "..", "..", "shared", "bench", "ort_ref.sh")
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def const(name, array):
    return helper.make_node("Constant", [], [name], name=name,
                            value=numpy_helper.from_array(np.asarray(array), name))


def model(nodes, inputs, outputs, opset=13, name="case"):
    g = helper.make_graph(nodes, name, inputs, outputs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def write_case(out, name, m, data_sets):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    onnx.save(m, os.path.join(d, "model.onnx"))
    for k, inputs in enumerate(data_sets):
        ds = os.path.join(d, "test_data_set_%d" % k)
        os.makedirs(ds, exist_ok=True)
        for i, (vi, a) in enumerate(zip(m.graph.input, inputs)):
            t = numpy_helper.from_array(a, vi.name)
            with open(os.path.join(ds, "input_%d.pb" % i), "wb") as f:
                f.write(t.SerializeToString())
    return d


def rng_input(shape, seed):
    return np.random.RandomState(seed).uniform(-1, 1, size=shape).astype(np.float32)


def fpad_chain(prefix, x, out, torch_pads, mode="constant"):
    """PyTorch's F.pad export (symbolic_opset11._prepare_onnx_paddings) on a rank-4 input:
    torch order (last dim first, begin/end pairs) -> ONNX order (all begins, then all ends)."""
    p = prefix
    n_extra = 8 - len(torch_pads)
    return [
        const(p + "pads", np.array(torch_pads, dtype=np.int64)),
        const(p + "extra_len", np.array([n_extra], dtype=np.int64)),
        helper.make_node("ConstantOfShape", [p + "extra_len"], [p + "zeros"], name=p + "cos",
                         value=numpy_helper.from_array(np.array([0], dtype=np.int64))),
        helper.make_node("Concat", [p + "pads", p + "zeros"], [p + "all"], name=p + "concat",
                         axis=0),
        const(p + "pairs", np.array([-1, 2], dtype=np.int64)),
        helper.make_node("Reshape", [p + "all", p + "pairs"], [p + "r1"], name=p + "reshape1"),
        const(p + "s_start", np.array([-1], dtype=np.int64)),
        const(p + "s_end", np.array([-9223372036854775807], dtype=np.int64)),
        const(p + "s_axes", np.array([0], dtype=np.int64)),
        const(p + "s_steps", np.array([-1], dtype=np.int64)),
        helper.make_node("Slice", [p + "r1", p + "s_start", p + "s_end", p + "s_axes",
                                   p + "s_steps"], [p + "rev"], name=p + "slice"),
        helper.make_node("Transpose", [p + "rev"], [p + "tr"], name=p + "transpose", perm=[1, 0]),
        const(p + "flat", np.array([-1], dtype=np.int64)),
        helper.make_node("Reshape", [p + "tr", p + "flat"], [p + "r2"], name=p + "reshape2"),
        helper.make_node("Cast", [p + "r2"], [p + "onnx_pads"], name=p + "cast", to=I64),
        const(p + "value", np.array(0.5, dtype=np.float32)),
        helper.make_node("Pad", [x, p + "onnx_pads", p + "value"], [out], name=p + "pad",
                         mode=mode),
    ]


def pads_from_shape(prefix, x, out):
    """Pads H and W of x (N, C, H, W) at the end up to multiples of 8: (8 - d % 8) % 8."""
    p = prefix
    nodes = [helper.make_node("Shape", [x], [p + "shape"], name=p + "shape_node"),
             const(p + "eight", np.array(8, dtype=np.int64)),
             const(p + "zero4", np.array([0, 0, 0, 0, 0, 0], dtype=np.int64))]
    ends = []
    for axis in (2, 3):
        q = p + "a%d_" % axis
        nodes += [
            const(q + "idx", np.array(axis, dtype=np.int64)),
            helper.make_node("Gather", [p + "shape", q + "idx"], [q + "d"], name=q + "gather",
                             axis=0),
            helper.make_node("Mod", [q + "d", p + "eight"], [q + "m"], name=q + "mod"),
            helper.make_node("Sub", [p + "eight", q + "m"], [q + "s"], name=q + "sub"),
            helper.make_node("Mod", [q + "s", p + "eight"], [q + "pad"], name=q + "mod2"),
            const(q + "ax0", np.array([0], dtype=np.int64)),
            helper.make_node("Unsqueeze", [q + "pad", q + "ax0"], [q + "pad1"], name=q + "unsq"),
        ]
        ends.append(q + "pad1")
    nodes += [
        helper.make_node("Concat", [p + "zero4"] + ends, [p + "pads"], name=p + "concat", axis=0),
        helper.make_node("Pad", [x, p + "pads"], [out], name=p + "pad", mode="constant"),
    ]
    return nodes


def if_node(cond, then_nodes, then_out, else_nodes, else_out, out, rank=4):
    dims = ["d%d" % i for i in range(rank)]
    t = helper.make_graph(then_nodes, "then", [], [helper.make_tensor_value_info(then_out, F,
                                                                                 dims)])
    e = helper.make_graph(else_nodes, "else", [], [helper.make_tensor_value_info(else_out, F,
                                                                                 dims)])
    return helper.make_node("If", [cond], [out], name="if", then_branch=t, else_branch=e)


def build(out):
    cases = []
    x4 = lambda dims: helper.make_tensor_value_info("x", F, dims)
    y4 = helper.make_tensor_value_info("y", F, ["n", "c", "h", "w"])

    # If on one-element conditions of rank 1 and 2.
    for rank, name in ((1, "if_cond_rank1"), (2, "if_cond_rank2")):
        cshape = [1] * rank
        then = [helper.make_node("Mul", ["x", "two"], ["t_out"], name="t_mul")]
        els = [helper.make_node("Sub", ["x", "one"], ["e_out"], name="e_sub")]
        nodes = [const("two", np.array(2, dtype=np.float32)),
                 const("one", np.array(1, dtype=np.float32)),
                 if_node("cond", then, "t_out", els, "e_out", "y", rank=2)]
        m = model(nodes, [helper.make_tensor_value_info("x", F, [2, 3]),
                          helper.make_tensor_value_info("cond", B, cshape)],
                  [helper.make_tensor_value_info("y", F, [2, 3])])
        sets = [[rng_input([2, 3], 1), np.ones(cshape, dtype=bool)],
                [rng_input([2, 3], 2), np.zeros(cshape, dtype=bool)]]
        cases.append(write_case(out, name, m, sets))

    # The F.pad chain, alone and inside an If branch.
    dyn = ["n", "c", "h", "w"]
    m = model(fpad_chain("p_", "x", "y", [1, 2, 3, 0]), [x4(dyn)], [y4])
    cases.append(write_case(out, "fpad_chain", m, [[rng_input([1, 2, 3, 4], 3)],
                                                   [rng_input([2, 1, 5, 2], 4)]]))
    then = fpad_chain("t_", "x", "t_out", [1, 2, 3, 0], mode="constant")
    els = fpad_chain("e_", "x", "e_out", [2, 1, 1, 1], mode="reflect")
    m = model([if_node("cond", then, "t_out", els, "e_out", "y")],
              [x4(dyn), helper.make_tensor_value_info("cond", B, [1])], [y4])
    cases.append(write_case(out, "fpad_chain_in_if", m, [
        [rng_input([1, 2, 3, 4], 5), np.ones([1], dtype=bool)],
        [rng_input([1, 1, 4, 5], 6), np.zeros([1], dtype=bool)]]))

    # Pads computed from the input's shape, alone and inside an If branch.
    m = model(pads_from_shape("p_", "x", "y"), [x4(dyn)], [y4])
    cases.append(write_case(out, "pads_from_shape", m, [[rng_input([1, 2, 5, 6], 7)],
                                                        [rng_input([1, 1, 8, 3], 8)]]))
    then = pads_from_shape("t_", "x", "t_out")
    els = [helper.make_node("Identity", ["x"], ["e_out"], name="e_id")]
    m = model([if_node("cond", then, "t_out", els, "e_out", "y")],
              [x4(dyn), helper.make_tensor_value_info("cond", B, [1, 1])], [y4])
    cases.append(write_case(out, "pads_from_shape_in_if", m, [
        [rng_input([1, 2, 5, 6], 9), np.ones([1, 1], dtype=bool)],
        [rng_input([1, 1, 9, 3], 10), np.ones([1, 1], dtype=bool)],
        [rng_input([1, 1, 9, 3], 11), np.zeros([1, 1], dtype=bool)]]))

    # Resize on symbolic H, W: by constant scales (linear), and to sizes computed from the
    # shape (2H, W + W // 2, nearest).
    nodes = [
        const("scales", np.array([1, 1, 2, 2], dtype=np.float32)),
        helper.make_node("Resize", ["x", "", "scales"], ["y"], name="by_scales", mode="linear",
                         coordinate_transformation_mode="half_pixel"),
        helper.make_node("Shape", ["x"], ["shape"], name="shape"),
        const("mul", np.array([1, 1, 2, 1], dtype=np.int64)),
        helper.make_node("Mul", ["shape", "mul"], ["scaled"], name="mul_node"),
        const("two", np.array(2, dtype=np.int64)),
        const("three", np.array(3, dtype=np.int64)),
        const("widx", np.array([3], dtype=np.int64)),
        helper.make_node("Gather", ["shape", "widx"], ["w1"], name="gather_w", axis=0),
        helper.make_node("Mul", ["w1", "three"], ["w3"], name="mul_w"),
        helper.make_node("Div", ["w3", "two"], ["w_half"], name="div_w"),
        const("s0", np.array([0], dtype=np.int64)),
        const("s3", np.array([3], dtype=np.int64)),
        helper.make_node("Slice", ["scaled", "s0", "s3"], ["nch"], name="slice_nch"),
        helper.make_node("Concat", ["nch", "w_half"], ["sizes"], name="sizes_node", axis=0),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["z"], name="to_sizes",
                         mode="nearest", coordinate_transformation_mode="asymmetric",
                         nearest_mode="floor"),
    ]
    m = model(nodes, [x4(dyn)], [y4, helper.make_tensor_value_info("z", F, dyn)])
    cases.append(write_case(out, "resize_symbolic", m, [[rng_input([1, 2, 3, 4], 12)],
                                                        [rng_input([1, 1, 5, 2], 13)]]))

    # Resize to sizes computed in float from the shape, as PyTorch exports F.interpolate with
    # a scale factor: Shape -> Slice -> Cast(float) -> Mul(1.5) -> Floor -> Cast(int64) ->
    # Concat(N, C, ...): the float steps run at run time, the sizes become run-time dims.
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"], name="shape"),
        const("s0", np.array([0], dtype=np.int64)),
        const("s2", np.array([2], dtype=np.int64)),
        const("s4", np.array([4], dtype=np.int64)),
        helper.make_node("Slice", ["shape", "s0", "s2"], ["nc"], name="slice_nc"),
        helper.make_node("Slice", ["shape", "s2", "s4"], ["hw"], name="slice_hw"),
        helper.make_node("Cast", ["hw"], ["hw_f"], name="cast_f", to=F),
        const("factor", np.array([1.5, 1.5], dtype=np.float32)),
        helper.make_node("Mul", ["hw_f", "factor"], ["hw_scaled"], name="mul"),
        helper.make_node("Floor", ["hw_scaled"], ["hw_floor"], name="floor"),
        helper.make_node("Cast", ["hw_floor"], ["hw_i"], name="cast_i", to=I64),
        helper.make_node("Concat", ["nc", "hw_i"], ["sizes"], name="sizes_node", axis=0),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="resize", mode="linear",
                         coordinate_transformation_mode="pytorch_half_pixel"),
    ]
    m = model(nodes, [x4(dyn)], [y4])
    cases.append(write_case(out, "resize_sizes_in_float", m, [[rng_input([1, 2, 4, 6], 18)],
                                                             [rng_input([1, 1, 3, 5], 19)]]))

    # Slice to the first half of the last axis, the end computed from the shape; and a slice
    # whose start is a graph input.
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"], name="shape"),
        const("last", np.array([-1], dtype=np.int64)),
        helper.make_node("Gather", ["shape", "last"], ["w"], name="gather", axis=0),
        const("two", np.array([2], dtype=np.int64)),
        helper.make_node("Div", ["w", "two"], ["half"], name="div"),
        const("zero", np.array([0], dtype=np.int64)),
        const("axis", np.array([1], dtype=np.int64)),
        helper.make_node("Slice", ["x", "zero", "half", "axis"], ["y"], name="slice"),
    ]
    m = model(nodes, [helper.make_tensor_value_info("x", F, [2, "w"])],
              [helper.make_tensor_value_info("y", F, [2, "half"])])
    cases.append(write_case(out, "slice_from_shape", m, [[rng_input([2, 6], 14)],
                                                         [rng_input([2, 9], 15)]]))
    nodes = [
        const("end", np.array([9223372036854775807], dtype=np.int64)),
        const("axis", np.array([0], dtype=np.int64)),
        helper.make_node("Slice", ["x", "start", "end", "axis"], ["y"], name="slice"),
    ]
    m = model(nodes, [helper.make_tensor_value_info("x", F, ["n", 3]),
                      helper.make_tensor_value_info("start", I64, [1])],
              [helper.make_tensor_value_info("y", F, ["m", 3])])
    cases.append(write_case(out, "slice_runtime", m, [
        [rng_input([5, 3], 16), np.array([2], dtype=np.int64)],
        [rng_input([4, 3], 17), np.array([0], dtype=np.int64)]]))
    return cases


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    cases = build(out)
    subprocess.check_call([ORT_REF] + cases)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Makes the text_detector case of tests/unit/models/text_detector_test.cc (not committed: 1.6 MB).

    /usr/bin/python3 tests/data/onnx_compat/text_detector_case.py OUTDIR

OUTDIR/text_detector: the bench model from ../shared/models/make_models.py (height and width
dynamic) with its PyTorch reference at 320x320 (test_data_set_0).
OUTDIR/ort: the same model with inputs of 256x384 (test_data_set_0) and 480x320
(test_data_set_1) and ONNX Runtime's outputs for them (../shared/bench/ort_ref.sh).
Exits non-zero when torch, the generator or ONNX Runtime is unavailable.
"""
import os
import shutil
import subprocess
import sys

import numpy as np
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "..", "..", "shared")


def main():
    out = sys.argv[1]
    model_dir = os.path.join(out, "text_detector")
    if not os.path.exists(os.path.join(model_dir, "model.onnx")):
        subprocess.check_call([sys.executable, os.path.join(SHARED, "models", "make_models.py"),
                               out, "--only", "text_detector"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    ort = os.path.join(out, "ort")
    os.makedirs(ort, exist_ok=True)
    shutil.copy(os.path.join(model_dir, "model.onnx"), os.path.join(ort, "model.onnx"))
    for k, (h, w) in enumerate([(256, 384), (480, 320)]):
        d = os.path.join(ort, "test_data_set_%d" % k)
        os.makedirs(d, exist_ok=True)
        x = np.random.RandomState(k).standard_normal((1, 3, h, w)).astype(np.float32)
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, "input").SerializeToString())
    subprocess.check_call([os.path.join(SHARED, "bench", "ort_ref.sh"), ort],
                          stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The machine's fp32 peak, and how much of it Relax's generated GEMM and conv kernels reach.

usage: bench/peak.sh [--build DIR] [--runs N] [--threads T] [--only a,b] [--json FILE]

1. relax-fma-peak (bench/peak/fma_peak.cc): an FMA throughput loop in the host's best ISA
   (AVX-512 where the CPU has it, else AVX2+FMA), single-thread and on
   T threads at once; the best of 40 trials of 20 ms each.
2. For each workload below: a one-operator Relax module (.rx) with its operands as parameters
   (the `_w` matmuls: the weight a metadata constant, so pack-weights packs it),
   compiled by `relax-driver compile -p config/pipelines/default.yaml` (the llvm target), run
   with random inputs by `relax-driver run --warmup --repeat --json`, at RELAX_NUM_THREADS=T and
   at 1 thread. GFLOP/s = 2*M*N*K (convs: 2 * outputs * C_in/groups * kh * kw) / time; the
   efficiency is that over the FMA peak of the same thread count (for T threads the larger of
   the T-thread measurement and T x the 1-thread one: cores do not share FMA units, and on a
   shared machine the T-thread run competes with other work). Best (min) times are used
   for both, as the peak is a best case too: on a shared machine a slower run is interference.
Prints a Markdown table on stdout, progress on stderr. Standard library only.
"""
import argparse, json, os, subprocess, sys, tempfile, time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def matmul(m, n, k):
    rx = f"""@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(({m}, {k}), "float32"), b: R.Tensor(({k}, {n}), "float32")) -> R.Tensor(({m}, {n}), "float32"):
        with R.dataflow():
            c = R.matmul(a, b)
            R.output(c)
        return c
"""
    return rx, 2.0 * m * n * k, f"matmul {m}x{k} @ {k}x{n}"


def matmul_const(m, n, k):
    """A matmul whose right operand is a constant (a model's weight): what pack-weights packs."""
    # Short decimal values (multiples of 1/8 in [-1, 1]) keep the module text small.
    values = ", ".join(f"{((i * 37) % 17 - 8) / 8:g}" for i in range(k * n))
    rx = f"""@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(({m}, {k}), "float32")) -> R.Tensor(({m}, {n}), "float32"):
        with R.dataflow():
            c = R.matmul(a, metadata["relax.expr.Constant"][0])
            R.output(c)
        return c

metadata = {{"relax.expr.Constant": [R.const([{values}], "float32", shape=({k}, {n}))]}}
"""
    return rx, 2.0 * m * n * k, f"matmul {m}x{k} @ const {k}x{n}"


def conv(c, h, w, o, kh, stride, pad, groups=1):
    oh, ow = (h + 2 * pad - kh) // stride + 1, (w + 2 * pad - kh) // stride + 1
    rx = f"""@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, {c}, {h}, {w}), "float32"), k: R.Tensor(({o}, {c // groups}, {kh}, {kh}), "float32")) -> R.Tensor((1, {o}, {oh}, {ow}), "float32"):
        with R.dataflow():
            y = R.nn.conv2d(x, k, strides=[{stride}, {stride}], padding=[{pad}, {pad}, {pad}, {pad}], groups={groups})
            R.output(y)
        return y
"""
    flops = 2.0 * o * oh * ow * (c // groups) * kh * kh
    what = f"conv {c}->{o} {kh}x{kh}/{stride} at {h}x{w}" + (f" groups {groups}" if groups > 1 else "")
    return rx, flops, what


def conv_nhwc(c, h, w, o, kh, stride, pad, groups=1):
    """conv() in NHWC with HWIO weights (what convert-layout gives the models)."""
    oh, ow = (h + 2 * pad - kh) // stride + 1, (w + 2 * pad - kh) // stride + 1
    rx = f"""@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, {h}, {w}, {c}), "float32"), k: R.Tensor(({kh}, {kh}, {c // groups}, {o}), "float32")) -> R.Tensor((1, {oh}, {ow}, {o}), "float32"):
        with R.dataflow():
            y = R.nn.conv2d(x, k, strides=[{stride}, {stride}], padding=[{pad}, {pad}, {pad}, {pad}], groups={groups}, data_layout="NHWC", kernel_layout="HWIO")
            R.output(y)
        return y
"""
    flops = 2.0 * o * oh * ow * (c // groups) * kh * kh
    what = f"NHWC conv {c}->{o} {kh}x{kh}/{stride} at {h}x{w}" + (f" groups {groups}" if groups > 1 else "")
    return rx, flops, what


# name: (module text, flops, description); the largest layers of the bench models included.
WORKLOADS = {
    "gemm256": matmul(256, 256, 256),
    "gemm1024": matmul(1024, 1024, 1024),
    "bert_qkv": matmul(128, 768, 768),        # bert_base_like: attention projections
    "bert_ffn1": matmul(128, 3072, 768),      # bert_base_like: FFN up (the largest matmul)
    "bert_ffn2": matmul(128, 768, 3072),      # bert_base_like: FFN down
    # The same with the weight a constant (as in a model): pack-weights stores it in panels.
    "gemm1024_w": matmul_const(1024, 1024, 1024),
    "bert_qkv_w": matmul_const(128, 768, 768),
    "bert_ffn1_w": matmul_const(128, 3072, 768),
    "bert_ffn2_w": matmul_const(128, 768, 3072),
    "r50_conv1": conv(3, 224, 224, 64, 7, 2, 3),     # resnet18/50 stem
    "r50_3x3_56": conv(64, 56, 56, 64, 3, 1, 1),     # resnet layer1 3x3
    "r50_3x3_14": conv(256, 14, 14, 256, 3, 1, 1),   # resnet50 layer3 3x3
    "r50_1x1_56": conv(64, 56, 56, 256, 1, 1, 0),    # resnet50 layer1 1x1 expand
    "mnv2_dw_112": conv(96, 112, 112, 96, 3, 2, 1, groups=96),  # mobilenet_v2 depthwise
    # The same layers and more in NHWC / HWIO (the models after convert-layout).
    "nhwc_stem": conv_nhwc(3, 224, 224, 64, 7, 2, 3),            # resnet18/50 stem
    "nhwc_3x3_56": conv_nhwc(64, 56, 56, 64, 3, 1, 1),           # resnet layer1 3x3
    "nhwc_3x3s2_56": conv_nhwc(128, 56, 56, 128, 3, 2, 1),       # resnet50 layer2 first 3x3/2
    "nhwc_3x3_28": conv_nhwc(128, 28, 28, 128, 3, 1, 1),         # resnet layer2 3x3
    "nhwc_3x3_14": conv_nhwc(256, 14, 14, 256, 3, 1, 1),         # resnet layer3 3x3
    "nhwc_3x3_7": conv_nhwc(512, 7, 7, 512, 3, 1, 1),            # resnet layer4 3x3
    "nhwc_1x1_56": conv_nhwc(64, 56, 56, 256, 1, 1, 0),          # resnet50 layer1 1x1 expand
    "nhwc_1x1s2_56": conv_nhwc(256, 56, 56, 512, 1, 2, 0),       # resnet50 layer2 downsample
    "nhwc_1x1_14": conv_nhwc(1024, 14, 14, 256, 1, 1, 0),        # resnet50 layer3 1x1 reduce
    "nhwc_mnv2_1x1_56": conv_nhwc(24, 56, 56, 144, 1, 1, 0),     # mobilenet_v2 expand at 56
    "nhwc_mnv2_1x1_28": conv_nhwc(192, 28, 28, 32, 1, 1, 0),     # mobilenet_v2 project at 28
    "nhwc_dw_56": conv_nhwc(144, 56, 56, 144, 3, 1, 1, groups=144),   # mobilenet_v2 depthwise
    "nhwc_dw_112": conv_nhwc(96, 112, 112, 96, 3, 2, 1, groups=96),   # mobilenet_v2 depthwise /2
}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, env=None, timeout=1800):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def last_json(text):
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.environ.get("RELAX_BUILD", os.path.join(REPO, "build")))
    ap.add_argument("--runs", type=int, default=10, help="timed runs per workload (default 10)")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--only", help="comma-separated workload names: " + ",".join(WORKLOADS))
    ap.add_argument("--pipeline", default=os.path.join(REPO, "config", "pipelines", "default.yaml"))
    ap.add_argument("--json", help="also write every number here")
    a = ap.parse_args()
    driver = os.path.join(a.build, "bin", "relax-driver")
    peak_bin = os.path.join(a.build, "bin", "relax-fma-peak")
    for b in (driver, peak_bin):
        if not os.access(b, os.X_OK):
            sys.exit(f"peak: {b} not found; build it or give --build DIR (bench/peak.sh builds both)")
    names = a.only.split(",") if a.only else list(WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        sys.exit(f"peak: unknown workload {', '.join(unknown)}; valid: {', '.join(WORKLOADS)}")

    log("peak: FMA throughput")
    rc, out, err = run([peak_bin, "--threads", str(a.threads)])
    if rc != 0:
        sys.exit(f"peak: relax-fma-peak failed (exit {rc}): {err.strip()}")
    peak = last_json(out)
    peak_one = peak["single_thread_gflops"]
    # Cores do not share FMA units: T cores can do T x one core. On a shared machine the
    # T-thread measurement competes with other work, so the larger of the two is the peak.
    peak_all = max(peak["all_threads_gflops"], a.threads * peak_one)

    rows, results = [], {}
    with tempfile.TemporaryDirectory(prefix="relax-peak-") as tmp:
        for name in names:
            rx, flops, what = WORKLOADS[name]
            src, exe = os.path.join(tmp, name + ".rx"), os.path.join(tmp, name + ".rxe")
            with open(src, "w") as f:
                f.write(rx)
            log(f"peak: {name}: compile")
            start = time.perf_counter()
            rc, out, err = run([driver, "compile", src, "-p", a.pipeline, "-o", exe])
            compile_s = time.perf_counter() - start
            if rc != 0:
                sys.exit(f"peak: {name}: compile failed (exit {rc}): {err.strip()[-2000:]}")
            r = {"what": what, "gflop": flops / 1e9, "compile_s": compile_s}
            for threads in (a.threads, 1):
                log(f"peak: {name}: run, {threads} thread(s)")
                env = dict(os.environ, RELAX_NUM_THREADS=str(threads))
                rc, out, err = run([driver, "run", exe, "--warmup", str(a.warmup), "--repeat",
                                    str(a.runs), "--json", "--print-limit", "-1"], env=env)
                j = last_json(out)
                if rc != 0 or j is None:
                    sys.exit(f"peak: {name}: run failed (exit {rc}): {(out + err).strip()[-2000:]}")
                r[f"t{threads}"] = {"median_ms": j["median_ms"], "min_ms": j["min_ms"],
                                    "gflops": flops / (j["min_ms"] * 1e6)}
            results[name] = r
            ta, t1 = r[f"t{a.threads}"], r["t1"]
            rows.append([name, what, f"{r['gflop']:.3f}", f"{ta['median_ms']:.2f}",
                         f"{ta['min_ms']:.2f}", f"{ta['gflops']:.1f}",
                         f"{100 * ta['gflops'] / peak_all:.1f}%", f"{t1['gflops']:.1f}",
                         f"{100 * t1['gflops'] / peak_one:.1f}%", f"{compile_s:.1f}"])
    print(f"fp32 FMA peak ({peak['isa']}, {peak['accumulators']} accumulators, best of 40): "
          f"{peak_one:.1f} GFLOP/s on 1 thread, {peak['all_threads_gflops']:.1f} GFLOP/s measured on "
          f"{a.threads} threads at once; {a.threads}-thread peak used: {peak_all:.1f} GFLOP/s "
          f"(the larger of that and {a.threads} x 1 thread)")
    head = ["workload", "what", "GFLOP", f"ms median ({a.threads}t)", f"ms min ({a.threads}t)",
            f"GFLOP/s ({a.threads}t)", f"% peak ({a.threads}t)", "GFLOP/s (1t)", "% peak (1t)",
            "compile s"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"peak": peak, "workloads": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

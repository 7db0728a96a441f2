#!/usr/bin/python3
"""Relax against ONNX Runtime and PyTorch on the zoo's bench models; one table.

usage: bench/compare.sh [MODELS_DIR] [--build DIR] [--models a,b] [--runs N] [--warmup W]
                        [--threads T] [--rtol R] [--atol A] [--no-ort] [--no-torch] [--json FILE]
                        [--targets vulkan,opencl]

For each model dir (ONNX backend-test layout: model.onnx, test_data_set_0/{input,output}_0.pb):
compile with config/pipelines/default.yaml (timed: the wall time of `relax-driver compile`),
run the executable on the stored input with `relax-driver run DIR --executable ... --check
--json` (RELAX_NUM_THREADS=T), then ONNX Runtime (../shared/bench/ort_bench.sh) and PyTorch
(../shared/bench/torch_bench.py) on the same input with the same thread count, one process at a
time. Prints a Markdown table on stdout and progress on stderr; exit status 1 when a Relax
compile, run or check failed (the peers' failures are reported in the table, not fatal).

--targets KIND,...: each model is also compiled with `--target KIND` (a GPU backend: vulkan,
opencl; the host's LLVM takes what the device cannot) and run the same way, with an empty kernel
cache (RELAX_CACHE_DIR, and POCL_CACHE_DIR for PoCL) so that its first run is a cold start, then
once more in a new process on the filled cache (a warm start). A second table compares them with
the llvm build.

MODELS_DIR defaults to a cache dir ($RELAX_BENCH_MODELS, else ~/.cache/relax-bench-models);
bench models missing there are generated with ../shared/models/make_models.py.
Standard library only: it runs under /usr/bin/python3 beside torch_bench.py.
"""
import argparse, json, math, os, re, shutil, subprocess, sys, tempfile, time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(REPO), "shared")
BENCH_SET = ["resnet18", "resnet50", "mobilenet_v2", "bert_base_like"]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, env=None, timeout=1800):
    """(returncode, stdout, stderr, seconds) of cmd; a timeout is returncode 124."""
    start = time.perf_counter()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = 124, e.stdout or "", (e.stderr or "") + f"\ntimed out after {timeout} s"
        out = out.decode() if isinstance(out, bytes) else out
        err = err.decode() if isinstance(err, bytes) else err
    return rc, out, err, time.perf_counter() - start


def json_lines(text):
    """The JSON objects among the lines of text."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return out


def last_lines(text, n=6):
    return " | ".join(l for l in text.strip().splitlines()[-n:])


def ensure_models(models_dir, names, explicit):
    """Model dirs by name; generates the missing ones when models_dir is the cache."""
    missing = [n for n in names if not os.path.isfile(os.path.join(models_dir, n, "model.onnx"))]
    if missing and explicit:
        sys.exit(f"compare: {models_dir} lacks {', '.join(missing)} (expected DIR/NAME/model.onnx); "
                 f"generate them with /usr/bin/python3 {SHARED}/models/make_models.py {models_dir} "
                 f"--only {','.join(missing)}, or leave MODELS_DIR out to use the cache")
    if missing:
        log(f"compare: generating {', '.join(missing)} into {models_dir} (make_models.py)")
        rc, out, err, _ = run(["/usr/bin/python3", os.path.join(SHARED, "models", "make_models.py"),
                               models_dir, "--only", ",".join(missing)], timeout=3600)
        if rc != 0:
            sys.exit(f"compare: make_models.py failed (exit {rc}): {last_lines(out + err)}")
    return {n: os.path.join(models_dir, n) for n in names}


def bench_relax(name, d, a, work, target="llvm"):
    """Compile and run one model with Relax for `target` (a kind: llvm, vulkan, ...); a dict of
    results (or 'error'). A target other than llvm runs on a kernel cache of its own, empty at
    first: its first run is a cold start; a second process then times a warm start."""
    res = {}
    suffix = "" if target == "llvm" else "." + target
    exe = os.path.join(work, name + suffix + ".rxe")
    cmd = [a.driver, "compile", os.path.join(d, "model.onnx"), "-p", a.pipeline, "-o", exe,
           "--time-passes"]
    env = dict(os.environ, RELAX_NUM_THREADS=str(a.threads))
    if target != "llvm":
        cmd += ["--target", target]
        cache = os.path.join(work, "cache-" + name + suffix)
        shutil.rmtree(cache, ignore_errors=True)
        env.update(RELAX_CACHE_DIR=os.path.join(cache, "relax"),
                   POCL_CACHE_DIR=os.path.join(cache, "pocl"))
    rc, out, err, secs = run(cmd, timeout=a.timeout)
    if rc != 0:
        return {"error": f"compile failed (exit {rc}): {last_lines(err)}"}
    res["compile_s"] = secs
    m = re.search(r"([0-9.]+) ms\s+total compile time", err)
    if m:
        res["passes_and_codegen_s"] = float(m.group(1)) / 1e3
    if a.keep_logs:
        with open(os.path.join(work, name + suffix + ".compile.log"), "w") as f:
            f.write(err)
    # A GPU target's first run is the cold start: no warm-up, so that `first_ms` is that run
    # (the driver leaves it out of the median then).
    warmup, repeat = (a.warmup, a.runs) if target == "llvm" else (0, a.runs + 1)
    cmd = [a.driver, "run", d, "--executable", exe, "--check", "--rtol", str(a.rtol), "--atol",
           str(a.atol), "--warmup", str(warmup), "--repeat", str(repeat), "--max-seconds",
           str(a.max_seconds), "--json"]
    rc, out, err, _ = run(cmd, env=env, timeout=a.timeout)
    lines = json_lines(out)
    if not lines:
        res["error"] = f"run failed (exit {rc}): {last_lines(out + err)}"
        return res
    r = lines[-1]
    res.update(median_ms=r.get("median_ms"), min_ms=r.get("min_ms"), first_ms=r.get("first_ms"),
               runs=r.get("runs"),
               max_abs_err=r.get("max_abs_err"), match=r.get("match"))
    if rc != 0 and not r.get("match", False):
        mism = [l for l in err.splitlines() if "MISMATCH" in l]  # run --json: verdicts on stderr
        res["check_error"] = mism[0] if mism else last_lines(out + err)
    if target != "llvm":
        cmd = [a.driver, "run", d, "--executable", exe, "--check", "--rtol", str(a.rtol),
               "--atol", str(a.atol), "--repeat", "1", "--json"]
        rc, out, err, _ = run(cmd, env=env, timeout=a.timeout)
        lines = json_lines(out)
        if lines:
            res["warm_first_ms"] = lines[-1].get("first_ms")
        else:
            res["error"] = f"warm run failed (exit {rc}): {last_lines(out + err)}"
    return res


def bench_ort(d, a):
    rc, out, err, _ = run([os.path.join(a.peers, "ort_bench.sh"), d, "--runs", str(a.runs),
                           "--warmup", str(a.warmup), "--threads", str(a.threads)],
                          timeout=a.timeout)
    lines = json_lines(out)
    if not lines or "error" in lines[-1]:
        return {"error": lines[-1]["error"] if lines else f"exit {rc}: {last_lines(err)}"}
    r = lines[-1]
    return {"median_ms": r["median_ms"], "min_ms": r["min_ms"], "max_abs_diff": r["max_abs_diff"],
            "runtime": r.get("runtime")}


def bench_torch(d, a):
    rc, out, err, _ = run(["/usr/bin/python3", os.path.join(a.peers, "torch_bench.py"), d,
                           "--runs", str(a.runs), "--warmup", str(a.warmup), "--threads",
                           str(a.threads)], timeout=a.timeout)
    lines = json_lines(out)
    if not lines or "error" in lines[-1]:
        return {"error": lines[-1]["error"] if lines else f"exit {rc}: {last_lines(err)}"}
    r = lines[-1]
    # The faster of eager and traced+frozen: the best PyTorch offers without extra tooling.
    best = "eager"
    if "jit_median_ms" in r and r["jit_median_ms"] < r["eager_median_ms"]:
        best = "jit"
    return {"median_ms": r[best + "_median_ms"], "min_ms": r[best + "_min_ms"], "mode": best,
            "max_abs_diff": r[best + "_max_abs_diff"], "runtime": r.get("runtime"),
            "blas": r.get("blas"), "raw": r}


def fmt(v, spec=".2f", missing="n/a"):
    return missing if v is None else format(v, spec)


def ratio(x, y):
    return x / y if x is not None and y else None


def geomean(values):
    values = [v for v in values if v is not None and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def check_cell(r):
    if "error" in r:
        return "FAIL: " + r["error"][:60]
    return "ok" if r.get("match") else "MISMATCH"


def target_table(results, a):
    """The --targets table: each model on each extra target against its llvm build."""
    head = ["model", "target", "ms (median)", "ms (min)", "/llvm", "first run cold ms",
            "first run warm ms", "compile s", "max abs err", "check"]
    rows, ratios = [], {t: [] for t in a.targets}
    for name, r in results.items():
        base = r["relax"].get("median_ms")
        for t in a.targets:
            x = r["targets"][t]
            rat = ratio(x.get("median_ms"), base)
            ratios[t].append(rat)
            med = fmt(x.get("median_ms"))
            if x.get("runs") is not None and x["runs"] < a.runs:
                med += f" (n={x['runs']})"
            rows.append([name, t, med, fmt(x.get("min_ms")), fmt(rat), fmt(x.get("first_ms"), ".0f"),
                         fmt(x.get("warm_first_ms"), ".0f"), fmt(x.get("compile_s"), ".1f"),
                         fmt(x.get("max_abs_err"), ".2e"), check_cell(x)])
    for t in a.targets:
        rows.append(["**geomean**", t, "", "", fmt(geomean(ratios[t])), "", "", "", "", ""])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def table(results, a):
    head = ["model", "Relax ms (median)", "Relax ms (min)", "ORT ms", "PyTorch ms", "Relax/ORT",
            "Relax/PyTorch", "compile s", "max abs err", "check"]
    rows = []
    cols = {k: [] for k in ["relax", "relax_min", "ort", "torch", "r_ort", "r_torch", "compile"]}
    for name, r in results.items():
        rx, ort, pt = r["relax"], r.get("ort", {}), r.get("torch", {})
        med = rx.get("median_ms")
        vals = dict(relax=med, relax_min=rx.get("min_ms"), ort=ort.get("median_ms"),
                    torch=pt.get("median_ms"), r_ort=ratio(med, ort.get("median_ms")),
                    r_torch=ratio(med, pt.get("median_ms")), compile=rx.get("compile_s"))
        for k, v in vals.items():
            cols[k].append(v)
        check = check_cell(rx)
        torch_cell = fmt(vals["torch"]) + (f" ({pt['mode']})" if "mode" in pt else "")
        relax_cell = fmt(vals["relax"])
        if rx.get("runs") is not None and rx["runs"] < a.runs:
            relax_cell += f" (n={rx['runs']})"  # cut short by --max-seconds
        rows.append([name, relax_cell, fmt(vals["relax_min"]), fmt(vals["ort"]), torch_cell,
                     fmt(vals["r_ort"]), fmt(vals["r_torch"]), fmt(vals["compile"], ".1f"),
                     fmt(rx.get("max_abs_err"), ".2e"), check])
    g = {k: geomean(v) for k, v in cols.items()}
    worst = [r["relax"].get("max_abs_err") for r in results.values()]
    worst = max((w for w in worst if w is not None), default=None)
    rows.append(["**geomean**", fmt(g["relax"]), fmt(g["relax_min"]), fmt(g["ort"]),
                 fmt(g["torch"]), fmt(g["r_ort"]), fmt(g["r_torch"]), fmt(g["compile"], ".1f"),
                 fmt(worst, ".2e") + " (max)", ""])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines), g


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models_dir", nargs="?", help="dir of model dirs (default: the cache)")
    ap.add_argument("--build", default=os.environ.get("RELAX_BUILD", os.path.join(REPO, "build")),
                    help="the build dir holding bin/relax-driver (default $RELAX_BUILD, else build)")
    ap.add_argument("--models", default=",".join(BENCH_SET), help="comma-separated model names")
    ap.add_argument("--runs", type=int, default=20, help="timed runs per runtime (default 20)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    ap.add_argument("--threads", type=int, default=os.cpu_count(),
                    help="threads for all three runtimes (default: the cores)")
    ap.add_argument("--max-seconds", type=float, default=60,
                    help="Relax's time budget per model: fewer runs when they are slow (default 60)")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-3)
    ap.add_argument("--pipeline", default=os.path.join(REPO, "config", "pipelines", "default.yaml"))
    ap.add_argument("--peers", default=os.path.join(SHARED, "bench"),
                    help="dir of ort_bench.sh and torch_bench.py (default ../shared/bench)")
    ap.add_argument("--no-ort", action="store_true")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per step (default 1800)")
    ap.add_argument("--json", help="also write every number (and the peers' raw lines) here")
    ap.add_argument("--keep-logs", metavar="DIR", help="keep the executables and compile logs here")
    ap.add_argument("--targets", default="",
                    help="also compile and run for these target kinds (vulkan,opencl), cold and "
                         "warm, compared with llvm in a second table")
    a = ap.parse_args()
    a.targets = [t for t in a.targets.split(",") if t and t != "llvm"]
    if a.runs < 1 or a.warmup < 0 or a.threads < 1:
        sys.exit("compare: --runs and --threads must be at least 1, --warmup at least 0")
    a.driver = os.path.join(a.build, "bin", "relax-driver")
    if not os.access(a.driver, os.X_OK):
        sys.exit(f"compare: {a.driver} not found; build it (cmake --build {a.build} --target "
                 f"relax-driver) or give --build DIR")
    names = [n for n in a.models.split(",") if n]
    explicit = a.models_dir is not None
    models_dir = a.models_dir or os.environ.get("RELAX_BENCH_MODELS") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "relax-bench-models")
    dirs = ensure_models(models_dir, names, explicit)

    results = {}
    with tempfile.TemporaryDirectory(prefix="relax-bench-") as tmp:
        work = a.keep_logs or tmp
        os.makedirs(work, exist_ok=True)
        for name, d in dirs.items():
            log(f"compare: {name}: relax")
            r = {"relax": bench_relax(name, d, a, work)}
            if not a.no_ort:
                log(f"compare: {name}: onnxruntime")
                r["ort"] = bench_ort(d, a)
            if not a.no_torch:
                log(f"compare: {name}: pytorch")
                r["torch"] = bench_torch(d, a)
            r["targets"] = {}
            for t in a.targets:
                log(f"compare: {name}: relax --target {t}")
                r["targets"][t] = bench_relax(name, d, a, work, t)
            for k, v in [(k, v) for k, v in r.items() if k != "targets"] + [
                    ("relax --target " + t, v) for t, v in r["targets"].items()]:
                if "error" in v:
                    log(f"compare: {name}: {k}: {v['error']}")
                if "check_error" in v:
                    log(f"compare: {name}: {k}: {v['check_error']}")
            results[name] = r
    text, g = table(results, a)
    print(f"threads {a.threads}, {a.runs} timed runs after {a.warmup} warm-up runs; "
          f"times are medians in ms unless marked; Relax checked with rtol {a.rtol}, atol {a.atol}")
    print(text)
    if a.targets:
        print()
        print(target_table(results, a))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"threads": a.threads, "runs": a.runs, "warmup": a.warmup, "models": results,
                       "geomean": g}, f, indent=1)
    failed = [n for n, r in results.items()
              for x in [r["relax"]] + list(r["targets"].values())
              if "error" in x or not x.get("match")]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

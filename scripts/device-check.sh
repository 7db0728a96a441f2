#!/usr/bin/env bash
# Runs on the lent GPU machine, from the folder scripts/device-bundle.sh filled: the devices
# each runtime sees, the op table through Vulkan and OpenCL on the GPU, each model's
# executables checked against their references with latencies, and PyTorch CUDA's latency on
# the same models when torch and the models' builder (make_models.py beside this script, or
# MAKE_MODELS) are there. Writes everything to ${OUT:-.}/device-report.txt as it goes.
# KINDS (default "vulkan opencl") picks the backends; OPS_KINDS those whose op table runs.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
report=${OUT:-.}/device-report.txt
export LD_LIBRARY_PATH="$here/lib:${LD_LIBRARY_PATH:-}"
export RELAX_PLUGIN_PATH="$here/plugins"
export RELAX_CACHE_DIR=${RELAX_CACHE_DIR:-/tmp/relax-cache}
export RELAX_REQUIRE_DEVICE=1
log() { echo "$*" | tee -a "$report"; }
: > "$report"
log "== $(nvidia-smi -L 2>/dev/null | head -1)"
"$here/bin/relax-driver" devices 2>&1 | tee -a "$report"
for kind in ${OPS_KINDS:-${KINDS:-vulkan opencl}}; do
  t="$here/bin/relax_ops_${kind}_tests"
  [ -x "$t" ] || continue
  log "== op table on $kind"
  start=$(date +%s)
  "$t" --gtest_brief=1 2>&1 | tail -15 | tee -a "$report"
  log "   ($(( $(date +%s) - start )) s)"
done
for m in "$here"/models/*/; do
  name=$(basename "$m")
  for kind in ${KINDS:-vulkan opencl}; do
    [ -f "$m/$kind.rxe" ] || continue
    line=$("$here/bin/relax-driver" run "$m" --executable "$m/$kind.rxe" --check --warmup 3 \
           --repeat 20 --json -q 2>/tmp/err.txt)
    log "model $name $kind $line $(tail -1 /tmp/err.txt | grep -i error)"
  done
done
mm=${MAKE_MODELS:-$here/make_models.py}
if [ -f "$mm" ] && python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  log "== PyTorch CUDA (fp32, eager, no_grad; median of 20 after 3 warm-up runs)"
  python3 - "$mm" "$here/models" <<'PY' 2>&1 | tee -a "$report"
import importlib.util, os, sys, time, torch
spec = importlib.util.spec_from_file_location("make_models", sys.argv[1])
mm = importlib.util.module_from_spec(spec); spec.loader.exec_module(mm)
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
for name in sorted(os.listdir(sys.argv[2])):
    try:
        model = mm.build(name).eval().cuda()
        x = mm.make_input(name).cuda()
        with torch.no_grad():
            for _ in range(3): model(x)
            torch.cuda.synchronize()
            times = []
            for _ in range(20):
                t = time.perf_counter(); model(x); torch.cuda.synchronize()
                times.append((time.perf_counter() - t) * 1e3)
        times.sort()
        print(f"torch {name} cuda median_ms {times[len(times)//2]:.3f} min_ms {times[0]:.3f}")
    except Exception as e:
        print(f"torch {name}: {type(e).__name__}: {e}")
PY
fi

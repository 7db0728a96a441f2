#!/usr/bin/env bash
# The accel example's test: check.sh DRIVER PLUGIN_DIR SOURCE_DIR [MLP_DIR] [CNN_DIR]
#  1. `relax-driver plugins` / `targets` list the backend (both halves) and its target kind;
#  2. the MLP compiled for --target accel runs on the accel device (copies through its device
#     runtime) and matches its expected output;
#  3. the CNN compiled with the BYOC pipeline (tests/byoc.yaml) offloads its convolutions to
#     the vendor library, runs the rest on LLVM and matches the ONNX reference.
set -euo pipefail
driver=$1 plugins=$2 src=$3 mlp=${4:-} cnn=${5:-}
export RELAX_PLUGIN_PATH=$plugins
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

list=$("$driver" plugins)
echo "$list" | grep -A3 '^accel ' | grep 'targets: accel' >/dev/null || fail "plugins: no accel target"$'\n'"$list"
echo "$list" | grep -A3 '^accel ' | grep 'codegens: accel' >/dev/null || fail "plugins: no accel codegen"
echo "$list" | grep -A3 '^accel-runtime ' | grep 'loaders: accel-byoc, accel-so' >/dev/null ||
  fail "plugins: the runtime half's loaders are missing"$'\n'"$list"
echo "$list" | grep -A3 '^accel-runtime ' | grep 'devices: accel (device type 33)' >/dev/null ||
  fail "plugins: the runtime half's device is missing"
# (Every pipeline here ends in a grep that reads all its input: `grep -q` stops at the first
# match, and with pipefail the writer's SIGPIPE on the rest would read as a failure.)
targets=$("$driver" targets)
echo "$targets" | grep '^accel' >/dev/null || fail "targets: no accel"$'\n'"$targets"
echo "ok: relax-driver plugins/targets list the accel backend"

if [ -n "$mlp" ]; then
  "$driver" compile "$mlp/mlp.rx" --target accel --stats -o "$work/mlp.rxe" >"$work/mlp.log" 2>&1 ||
    { cat "$work/mlp.log"; fail "compile mlp for accel"; }
  "$driver" inspect "$work/mlp.rxe" >"$work/mlp.inspect"
  grep -q 'accel-so' "$work/mlp.inspect" || fail "inspect: no accel-so library"
  "$driver" run "$work/mlp.rxe" --input "x=$mlp/input_b3.npy" --output-dir "$work/out" >/dev/null
  python3 - "$work/out/output_0.npy" "$mlp/expected_b3.npy" <<'PY' || fail "mlp on accel: wrong output"
import sys, struct
def load(p):
    b = open(p, 'rb').read(); n = struct.unpack('<H', b[8:10])[0]; d = b[10 + n:]
    return struct.unpack('<%df' % (len(d) // 4), d)
a, b = load(sys.argv[1]), load(sys.argv[2])
assert len(a) == len(b) and max(abs(x - y) for x, y in zip(a, b)) < 1e-4, (a[:4], b[:4])
PY
  echo "ok: mlp on the accel device matches expected_b3.npy"
fi

if [ -n "$cnn" ]; then
  "$driver" compile "$cnn/model.onnx" -p "$src/tests/byoc.yaml" --stats -o "$work/cnn.rxe" \
    >"$work/cnn.log" 2>&1 || { cat "$work/cnn.log"; fail "compile the CNN with BYOC"; }
  n=$(grep -c 'offload: .* -> accel:accel_conv2d_' "$work/cnn.log" || true)
  [ "$n" -ge 1 ] || { cat "$work/cnn.log"; fail "no convolution offloaded"; }
  "$driver" inspect "$work/cnn.rxe" >"$work/cnn.inspect"
  # inspect shows which function went where: the offloaded convolutions in the vendor's
  # library, the rest in LLVM's.
  grep -q 'accel-byoc: .* kernels: .*accel_conv2d_' "$work/cnn.inspect" ||
    { cat "$work/cnn.inspect"; fail "inspect: no accel-byoc library with the convolutions"; }
  grep -q 'llvm-so: .* kernels: ' "$work/cnn.inspect" || fail "inspect: no llvm-so library"
  "$driver" run "$cnn" --executable "$work/cnn.rxe" --check || fail "CNN with BYOC: wrong output"
  echo "ok: CNN with $n convolutions offloaded to the accel library matches its reference"
fi

# The plugins export only their entry points (hidden visibility, docs/sdk.md); the standard
# library's own template instantiations (std::..., vague linkage) are not the plugin's.
if command -v nm >/dev/null 2>&1; then
  for so in "$plugins"/librelax-accel*.so; do
    extra=$(nm -D --defined-only "$so" | awk '{print $3}' |
            grep -v -E '^(relax_plugin_info|relax_runtime_plugin_init|relax_runtime_plugin_abi_version|_init|_fini|_edata|_end|__bss_start)$' |
            grep -v -E '^_Z(Z?N?K?St|St)' || true)
    [ -z "$extra" ] || fail "$so exports more than its entry points: $extra"
  done
  echo "ok: the plugins export only their entry points"
fi

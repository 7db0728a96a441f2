#!/usr/bin/env bash
# The machine's fp32 FMA peak and the GEMM/conv efficiency of Relax's generated code, one table
# (see bench/README.md).
#   bench/peak.sh [--build DIR] [--runs N] [--threads T] [--only a,b] [--json FILE]
# Builds relax-fma-peak and relax-driver (with the plugins the default pipeline loads) in the
# build dir ($RELAX_BUILD, else build/; configured already), then runs bench/peak.py.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${RELAX_BUILD:-$here/../build}"
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [ "${args[$i]}" = "--build" ] && [ $((i + 1)) -lt ${#args[@]} ]; then build="${args[$((i + 1))]}"; fi
done
if [ ! -f "$build/build.ninja" ] && [ ! -f "$build/Makefile" ]; then
  echo "peak.sh: $build is not a configured build dir; run cmake -S $here/.. -B $build -G Ninja" >&2
  exit 1
fi
cmake --build "$build" -j"${RELAX_BUILD_JOBS:-2}" --target relax-fma-peak relax-driver \
  relax-plugin-llvm relax-plugin-llvm-runtime relax-plugin-fusion relax-plugin-memory \
  relax-plugin-cleanup relax-plugin-onnx >&2
exec /usr/bin/python3 "$here/peak.py" --build "$build" "$@"

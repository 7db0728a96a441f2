#!/usr/bin/env bash
# bench/memory_report.sh: kernel launches and memory-plan statistics per model (issue #9).
#
# For each model it compiles twice with `relax-driver compile --stats`: with
# config/pipelines/o0.yaml (no fusion, no planning) and with config/pipelines/default.yaml plus
# `--upper-bound` (memory planned at the bounds of the symbolic dimensions). It prints one
# markdown table: kernels launched under o0 and default and the cut, then, from the default
# build, the bytes of the intermediate tensors without planning (one allocation each), with the
# plan (arena + outputs) and the liveness lower bound, and planned/bound. Counts are summed over
# the Relax functions of a module; "-" where a build fails or records no statistics (a size
# left symbolic).
#
# Usage: bench/memory_report.sh [--driver PATH] [--bound NAME=N[,NAME=N...]] [--check] [MODEL...]
#   --driver  relax-driver to use (default: build/bin/relax-driver)
#   --bound   upper bounds of symbolic dimensions (default batch=16,n=16)
#   --check   exit 1 unless every model with statistics has planned <= unplanned,
#             planned >= bound and fewer kernels under default than under o0 (or o0 with a
#             single kernel)
#   MODEL     .onnx or .rx files (default: ../shared/models/test/*/model.onnx and examples/)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
driver="$root/build/bin/relax-driver"
bound="batch=16,n=16"
check=0
models=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --driver) driver="$2"; shift 2 ;;
    --bound) bound="$2"; shift 2 ;;
    --check) check=1; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "memory_report.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
[[ -x "$driver" ]] || { echo "memory_report.sh: no relax-driver at '$driver' (give --driver)" >&2; exit 2; }
if [[ ${#models[@]} -eq 0 ]]; then
  for m in "$root"/../shared/models/test/*/model.onnx; do [[ -f "$m" ]] && models+=("$m"); done
  for m in "$root"/examples/*/*.rx; do models+=("$m"); done
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# compile PIPELINE MODEL [ARGS...]: the --stats lines on stdout; nothing when the build fails.
compile() {
  local pipeline="$1" model="$2"
  shift 2
  "$driver" compile "$model" -p "$root/config/pipelines/$pipeline.yaml" --stats \
    -o "$tmp/out.rxe" "$@" 2>&1 | grep '^stats: ' || true
}

# sums STATS: "kernels planned unplanned bound" summed over the functions ("-" when absent).
sums() {
  awk '
    NF == 0 { next }
    { n++; for (i = 1; i <= NF; i++) {
        if ($(i + 1) == "kernel") k += $i
        if ($i == "planned" && $(i - 1) == "memory:") { p += $(i + 1); m++ }
        if ($i == "unplanned") u += $(i + 1)
        if ($i == "bound") b += $(i + 1)
      } }
    END {
      if (n == 0) { print "- - - -"; exit }
      if (m == 0) { print k + 0, "-", "-", "-"; exit }
      print k + 0, p, u, b
    }' <<<"$1"
}

name_of() {
  local m="$1"
  case "$m" in
    */model.onnx) basename "$(dirname "$m")" ;;
    *) echo "${m#"$root"/}" ;;
  esac
}

echo "| model | kernels o0 | kernels default | cut % | unplanned bytes | planned bytes | lower bound | planned/bound |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
failures=0
for m in "${models[@]}"; do
  read -r k0 _ _ _ < <(sums "$(compile o0 "$m")")
  read -r k1 planned unplanned lower < <(sums "$(compile default "$m" --upper-bound "$bound")")
  cut="-"
  if [[ "$k0" != "-" && "$k1" != "-" && "$k0" -gt 0 ]]; then
    cut="$(awk -v a="$k0" -v b="$k1" 'BEGIN { printf "%.0f", 100 * (a - b) / a }')"
  fi
  ratio="-"
  if [[ "$planned" != "-" && "$lower" != "-" && "$lower" -gt 0 ]]; then
    ratio="$(awk -v p="$planned" -v b="$lower" 'BEGIN { printf "%.3f", p / b }')"
  fi
  echo "| $(name_of "$m") | $k0 | $k1 | $cut | $unplanned | $planned | $lower | $ratio |"
  if [[ $check -eq 1 ]]; then
    why=""
    if [[ "$k0" == "-" || "$k1" == "-" ]]; then
      why="a build failed"
    elif [[ "$planned" == "-" ]]; then
      why="no memory statistics (a size is symbolic without a bound)"
    elif (( planned > unplanned )); then
      why="planned $planned > unplanned $unplanned"
    elif (( planned < lower )); then
      why="planned $planned < lower bound $lower"
    elif (( k0 > 1 && k1 >= k0 )); then
      why="default launches $k1 kernels, o0 $k0"
    fi
    if [[ -n "$why" ]]; then
      echo "memory_report.sh: $(name_of "$m"): $why" >&2
      failures=$((failures + 1))
    fi
  fi
done
[[ $failures -eq 0 ]]

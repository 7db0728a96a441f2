#!/usr/bin/env bash
# The `conformance` ctest: generate the ONNX node tests into OUTDIR/cases (once per generator
# version) and run them all with relax-conformance; exit 77 (skipped) without python3-onnx.
#   usage: run_conformance.sh RELAX_CONFORMANCE GENERATOR OUTDIR FLOOR_PERCENT
set -euo pipefail
TOOL=$1 GEN=$2 OUT=$3 FLOOR=$4
PY=${PYTHON:-/usr/bin/python3}
if [ ! -x "$GEN" ] && [ ! -f "$GEN" ]; then
  echo "conformance: skipped: the generator $GEN does not exist"; exit 77
fi
if ! "$PY" -c 'import onnx, numpy' 2>/dev/null; then
  echo "conformance: skipped: $PY lacks the onnx or numpy module (apt install python3-onnx)"
  exit 77
fi
stamp="$("$PY" -c 'import onnx; print(onnx.__version__)') $(md5sum "$GEN" | cut -d' ' -f1)"
mkdir -p "$OUT"
if [ ! -f "$OUT/cases/.stamp" ] || [ "$(cat "$OUT/cases/.stamp")" != "$stamp" ]; then
  rm -rf "$OUT/cases"
  bash "$GEN" "$OUT/cases" >"$OUT/generate.log" 2>&1 || {
    cat "$OUT/generate.log"; echo "conformance: generating the cases failed"; exit 1; }
  echo "$stamp" >"$OUT/cases/.stamp"
fi
exec "$TOOL" "$OUT/cases" --report "$OUT/report.md" --floor "$FLOOR" --jobs "${RELAX_CONFORMANCE_JOBS:-2}"

#!/usr/bin/env bash
# CI fuzz smoke run: builds the libFuzzer targets of fuzz/ (clang-15, ASan+UBSan, build-fuzz/,
# ccache) and runs each target's repeatable smoke run (fuzz/CMakeLists.txt: a fixed seed, the
# seed corpus in a fixed order, a fixed number of inputs, RELAX_FUZZ_SMOKE_SECONDS (default 90)
# at most), two at a time. Fails on any crash, leak, timeout or escaped internal error; the crash input
# is left in build-fuzz/fuzz/<target>/artifacts (add it to fuzz/regressions/<target>/ with the
# fix). RELAX_FUZZ_PARALLEL (2) targets fuzz at a time. Runs after `make test` (its ONNX conformance cases are the ONNX and .pb seeds).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${RELAX_FUZZ_BUILD:-build-fuzz}
SECS=${RELAX_FUZZ_SMOKE_SECONDS:-90}
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  CC=clang-15 CXX=clang++-15 cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Fuzz \
    "-DCMAKE_CXX_FLAGS=-O1 -gline-tables-only" "-DCMAKE_C_FLAGS=-O1 -gline-tables-only" \
    -DRELAX_FUZZ=ON "-DRELAX_SANITIZE=address;undefined" -DRELAX_BUILD_TESTS=OFF \
    -DRELAX_BUILD_BENCH=OFF
fi
cmake "$BUILD" -DRELAX_FUZZ_SMOKE_SECONDS="$SECS" >/dev/null
ninja -C "$BUILD" -j "${JOBS:-$(nproc)}" fuzz_rx fuzz_onnx fuzz_pipeline fuzz_rxe fuzz_tensor \
  fuzz_relay
rc=0
ctest --test-dir "$BUILD" -L fuzz -j "${RELAX_FUZZ_PARALLEL:-2}" --output-on-failure || rc=$?
grep -h '^fuzz-summary' "$BUILD"/Testing/Temporary/LastTest.log || true
exit $rc

#!/usr/bin/env bash
# The SDK step of CI (.ci/run): installs the build into a temporary prefix, checks that every
# installed header compiles alone, then configures, builds and tests every sdk/examples project
# against that prefix only (not the build tree). The accel example runs examples/mlp on its
# device and ../shared/models/test/small_cnn with BYOC offload against the ONNX reference.
# Last, a runtime-only install (component runtime) builds the accel runtime half alone.
# Usage: .ci/sdk_examples.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
prefix=$(mktemp -d /tmp/relax-sdk-prefix.XXXXXX)
deploy=$(mktemp -d /tmp/relax-sdk-deploy.XXXXXX)
work=$(mktemp -d /tmp/relax-sdk-examples.XXXXXX)
trap 'rm -rf "$prefix" "$deploy" "$work"' EXIT
gen=$(command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

cmake --install "$build" --prefix "$prefix" >/dev/null
echo "sdk: installed into $prefix ($(find "$prefix" -type f | wc -l) files)"
sdk/tests/check_installed_headers.sh "$prefix"

cnn=$(cd .. && pwd)/shared/models/test/small_cnn
for ex in sdk/examples/*/; do
  name=$(basename "$ex")
  args=(-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}")
  if [ "$name" = accel ]; then
    args+=(-DRELAX_EXAMPLE_MLP="$PWD/examples/mlp")
    [ -d "$cnn" ] && args+=(-DRELAX_EXAMPLE_CNN="$cnn")
  fi
  echo "sdk: example $name"
  cmake -S "$ex" -B "$work/$name" -G "$gen" "${args[@]}" >/dev/null
  cmake --build "$work/$name" -j "$(nproc)"
  ctest --test-dir "$work/$name" --output-on-failure
done

# A deploy-only install (component runtime) is enough to build a runtime plugin.
cmake --install "$build" --prefix "$deploy" --component runtime >/dev/null
echo "sdk: runtime-only install: $(find "$deploy" -type f | wc -l) files; building the accel runtime half"
cmake -S sdk/examples/accel -B "$work/accel-deploy" -G "$gen" -DCMAKE_PREFIX_PATH="$deploy" \
  "${launcher[@]}" >/dev/null
cmake --build "$work/accel-deploy" -j "$(nproc)"
test -f "$work/accel-deploy/plugins/librelax-accel-runtime.so"

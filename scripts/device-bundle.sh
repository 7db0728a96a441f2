#!/usr/bin/env bash
# Packs what the GPU checks need into one folder (default .devcarry/, git-ignored through
# .git/info/exclude) for a machine that has a GPU but none of the build: the driver, the two
# libraries, the GPU plugin pairs and the LLVM runtime (host kernels), the device op-table test
# binaries, the shared libraries they need that such a machine may lack (TBB, yaml-cpp, the
# Vulkan loader, GLdispatch for NVIDIA's ICD), executables compiled here for each GPU target
# with their test data, and scripts/device-check.sh to run there. Everything is stripped.
#   scripts/device-bundle.sh [BUILD_DIR] [OUT_DIR] [MODEL_DIR...]
# Each MODEL_DIR is an ONNX test directory (model.onnx, test_data_set_0/); it is compiled for
# vulkan and opencl with the llvm host.
set -euo pipefail
build=${1:-build}
out=${2:-.devcarry}
shift 2 || true
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/plugins" "$out/models"
strip_to() { strip --strip-unneeded -o "$2" "$1"; }
strip_to "$build/bin/relax-driver" "$out/bin/relax-driver"
for t in relax_ops_vulkan_tests relax_ops_opencl_tests; do
  if [ -x "$build/bin/$t" ]; then strip_to "$build/bin/$t" "$out/bin/$t"; fi
done
for l in librelax_runtime.so librelax_compiler.so; do strip_to "$build/lib/$l" "$out/lib/$l"; done
for p in vulkan vulkan-runtime opencl opencl-runtime llvm-runtime; do
  f="$build/lib/relax/plugins/librelax-$p.so"
  if [ -f "$f" ]; then strip_to "$f" "$out/plugins/librelax-$p.so"; fi
done
for l in libtbb.so.12 libyaml-cpp.so.0.7 libvulkan.so.1 libGLdispatch.so.0; do
  f=$(ldconfig -p | awk -v l="$l" '$1 == l && !found { print $NF; found = 1 }')
  if [ -n "$f" ]; then cp -L "$f" "$out/lib/$l"; else echo "device-bundle: no $l here" >&2; fi
done
driver="$build/bin/relax-driver"
for dir in "$@"; do
  name=$(basename "$dir")
  mkdir -p "$out/models/$name"
  cp -r "$dir/test_data_set_0" "$out/models/$name/"
  for target in vulkan opencl; do
    # The host kernels run on the other machine's CPU: a baseline every x86-64 server has.
    "$driver" compile "$dir/model.onnx" --target "$target" --host "${HOST_TARGET:-llvm,mcpu=x86-64-v3}" \
      -q -o "$out/models/$name/$target.rxe"
  done
done
cp "$(dirname "$0")/device-check.sh" "$out/"
du -sh "$out"

#!/usr/bin/env bash
# Installs every Debian package Relax needs to build and test. Idempotent: it asks dpkg
# first and runs apt-get only when something is missing, so on a ready machine it is a no-op.
#   scripts/install-deps.sh [--bench]
# --bench (opt-in, not for CI): also the peers of bench/compare.sh: PyTorch with torchvision
# and the OpenMP OpenBLAS (bench/torch_bench.py), and Node.js with npm (bench/ort_bench.sh
# installs onnxruntime-node into a cache dir itself).
set -euo pipefail

bench=0
for arg in "$@"; do
  case "$arg" in
    --bench) bench=1 ;;
    *) echo "install-deps: unknown argument '$arg'; expected --bench or nothing" >&2; exit 1 ;;
  esac
done

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev   # tests and benchmarks
  libdlpack-dev                                # DLPack tensors in the C ABI
  libtbb-dev                                   # the compiler's parallel passes
  libyaml-cpp-dev                              # pipeline files
  libcli11-dev                                 # relax-driver command line
  libboost-dev libboost-graph-dev libboost-filesystem-dev  # Boost.Graph, Boost.DLL
  llvm-15-dev                                  # LLVM CPU backend (shared libLLVM-15.so)
  libonnx-dev libprotobuf-dev protobuf-compiler # ONNX frontend plugin (ModelProto parsing)
  python3-onnx python3-numpy                   # ONNX conformance test generator (../shared/conformance)
  mesa-vulkan-drivers libvulkan-dev vulkan-tools vulkan-validationlayers  # Vulkan backend, lavapipe
  spirv-tools spirv-headers                    # SPIR-V emission and in-process validation
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo clang-15  # OpenCL backend, PoCL
  graphviz                                     # relax-driver graph -o g.svg|png renders with dot
  python3-dev pybind11-dev                     # the Python package relax (python/, docs/python.md)
  python3-pytest python3-torch                 # its tests (ctest -L python): NumPy/PyTorch interop
  libfuzzer-15-dev libclang-common-15-dev      # fuzz/ (clang-15 -fsanitize=fuzzer), .ci/fuzz.sh
)
if [ "$bench" = 1 ]; then
  packages+=(
    python3-torch python3-torchvision libopenblas0-openmp  # bench/torch_bench.py, make_models.py
    nodejs                                                 # bench/ort_bench.sh
  )
  # NodeSource's nodejs ships npm itself and conflicts with Debian's npm package.
  command -v npm >/dev/null || packages+=(npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

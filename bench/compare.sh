#!/usr/bin/env bash
# Relax against ONNX Runtime and PyTorch on the bench models: one table (see bench/README.md).
#   bench/compare.sh [MODELS_DIR] [--build DIR] [--models a,b] [--runs N] [--warmup W]
#                    [--threads T] [--rtol R] [--atol A] [--no-ort] [--no-torch] [--json FILE]
# Needs relax-driver built (default build dir: $RELAX_BUILD, else build/), and for the peers
# `scripts/install-deps.sh --bench` (PyTorch, OpenBLAS, Node.js).
set -euo pipefail
exec /usr/bin/python3 "$(dirname "$0")/compare.py" "$@"

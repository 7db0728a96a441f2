#!/usr/bin/env bash
# check.sh DRIVER PLUGIN_DIR MODEL: the plugin is listed, its pass runs by name (loaded on
# demand from RELAX_PLUGIN_PATH) and counts the two ops of the model, and a bad option value is
# refused naming the pass and the option.
set -euo pipefail
driver=$1 plugins=$2 model=$3
export RELAX_PLUGIN_PATH=$plugins
"$driver" plugins | grep -A3 '^count-ops 1.0.0' | grep -q 'passes: count-ops' || { echo "FAIL: not listed"; exit 1; }
out=$("$driver" opt "$model" --passes "count-ops")
echo "$out" | grep -q '"op_count": 2' || { echo "FAIL: count"; echo "$out"; exit 1; }
out=$("$driver" opt "$model" --passes "count-ops{prefix=relax.nn.}")
echo "$out" | grep -q '"op_count": 1' || { echo "FAIL: prefix"; echo "$out"; exit 1; }
echo "ok: count-ops counts 2 ops, 1 under relax.nn."

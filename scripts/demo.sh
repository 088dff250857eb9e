#!/usr/bin/env bash
# Quick start 1: installs the dependencies, builds Atoll in Release and runs
# the main job on a bundled sample batch, writing report.json.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target atoll >/dev/null
batch=${1:-samples/mobilenetv2_block.json}
echo "== atoll run $batch --verify --bench --stats --report report.json"
build/src/atoll run "$batch" --verify --bench --stats --report report.json
echo "report: $(pwd)/report.json"

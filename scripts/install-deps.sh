#!/usr/bin/env bash
# Installs the Debian packages Atoll builds and tests with (idempotent; quiet
# when everything is already there). Needs root or sudo.
set -euo pipefail
packages=(build-essential cmake ccache pkg-config
          libisl-dev libppl-dev libgmp-dev
          llvm-19-dev llvm-19-tools libzstd-dev libxml2-dev libz3-dev zlib1g-dev
          libboost-graph-dev nlohmann-json3-dev doctest-dev
          clang-19
          pocl-opencl-icd ocl-icd-libopencl1
          libonnx-dev libprotobuf-dev protobuf-compiler
          pybind11-dev python3-dev python3-venv
          parallel)
# clang-19: Polly for the JSCoP tests. PoCL: an OpenCL platform on the CPU,
# on which the GPU tests run --target opencl (Atoll loads libOpenCL.so.1 at
# run time and builds without it). libonnx-dev: the ONNX project's protobuf
# classes, with which the ONNX reader parses .onnx files. pybind11-dev,
# python3-dev: the Python package; python3-venv: the virtual environment in
# which scripts/test.sh installs numpy, onnx and onnxruntime for its tests.
# parallel: GNU parallel, on which scripts/tune_parallel.sh shards `atoll
# tune` over hosts (tested on this machine with two shards).
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

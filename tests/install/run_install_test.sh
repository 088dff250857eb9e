#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, checks that the installed
# headers are the public API only (include/atoll, no third-party header in
# any of them), then configures, builds and runs a consumer project with
# find_package(atoll): a C++ program on the batch driver, a C program on the
# C API, a C++ program on the module API, and the API samples of samples/api.
set -euo pipefail
build=$1 source=$2 work=$3 samples=$4
shift 4  # further arguments go to the consumer's cmake configure
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
inc="$work/prefix/include"
extra=$(cd "$inc" && find . -type f ! -path './atoll/*' | sort)
if [ -n "$extra" ]; then
  echo "installed headers outside include/atoll:" >&2
  echo "$extra" >&2
  exit 1
fi
if grep -nE '#include *[<"](boost|nlohmann|isl|llvm|ppl)' -r "$inc/atoll"; then
  echo "an installed header includes a third-party library" >&2
  exit 1
fi
if grep -nE '#include *"' -r "$inc/atoll"; then
  echo "an installed header includes a project header by path" >&2
  exit 1
fi
cmake -S "$source" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
  -DATOLL_SAMPLES_DIR="$samples" "$@" >/dev/null
cmake --build "$work/consumer" >/dev/null
cd "$work"  # the samples write nothing outside it
"$work/consumer/consumer"
"$work/consumer/consumer_c"
"$work/consumer/consumer_module"
"$work/consumer/sample_host_compiler"
"$work/consumer/sample_c_api"
"$work/consumer/sample_scop_from_isl"
"$work/consumer/sample_build_graph"

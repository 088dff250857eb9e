#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then configures, builds and
# runs a consumer project with find_package(atoll): a C++ program on the
# C++ API, a C program on the C API (<atoll/atoll.h>) and a C++ program on
# the module API alone (<atoll/module.h>).
set -euo pipefail
build=$1 source=$2 work=$3
shift 3  # further arguments go to the consumer's cmake configure
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$source" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/consumer"
"$work/consumer/consumer_c"
"$work/consumer/consumer_module"

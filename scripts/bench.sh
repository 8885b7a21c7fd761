#!/usr/bin/env bash
# Release-build benchmarks. Every number is reported next to a baseline measured in the same run: the runtime
# against a raw llama.cpp loop, the decoder's masks against its own reference walk, and tagging throughput
# against llama.cpp's own server (scripts/throughput.sh, which writes benchmarks/RESULTS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=$(scripts/install-llama.sh --print-prefix)
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
swift build -c release --product fm-bench -Xlinker --disable-new-dtags -Xlinker -rpath -Xlinker "$PREFIX/lib"
swift build -c release --product fm -Xlinker --disable-new-dtags -Xlinker -rpath -Xlinker "$PREFIX/lib"
.build/release/fm-bench "${1:-all}"
if [[ ${1:-all} == all ]]; then
    echo
    echo "== throughput against llama-server"
    scripts/throughput.sh
fi

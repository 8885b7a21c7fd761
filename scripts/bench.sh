#!/usr/bin/env bash
# Release-build benchmarks. Every number is reported next to a baseline measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=$(scripts/install-llama.sh --print-prefix)
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
swift build -c release --product fm-bench -Xlinker --disable-new-dtags -Xlinker -rpath -Xlinker "$PREFIX/lib"
.build/release/fm-bench "${1:-all}"

#!/usr/bin/env bash
# Builds llama.cpp's own `llama-server` from the same vendored source as our libllama (the PyPI sdist of
# llama-cpp-python), with the same CPU flags, into a separate build directory. It is the anchor our
# quality and speed benchmarks and the chat-completions tests run against, on the same model.
# Idempotent: a finished install (marked by .complete) is reused. Prints the binary's path on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/llama-build.sh
PREFIX="$CACHE_ROOT/llama-server-$LLAMA_CPP_PYTHON_VERSION"
BINARY="$PREFIX/bin/llama-server"

if [[ "${1:-}" == "--print-path" ]]; then echo "$BINARY"; exit 0; fi

if install_complete "$PREFIX"; then echo "$BINARY"; exit 0; fi

log() { echo "[install-llama-server] $*" >&2; }

# One build at a time. A lock of its own: install-llama.sh, run below, takes the llama one.
mkdir -p "$CACHE_ROOT"
exec 8>"$CACHE_ROOT/.llama-server.lock"
flock 8
if install_complete "$PREFIX"; then echo "$BINARY"; exit 0; fi

# The source tree is the one install-llama.sh unpacks.
scripts/install-llama.sh
SRC=$(scripts/install-llama.sh --source)
[[ -d "$SRC" ]] || { log "no llama.cpp source at $SRC"; exit 1; }

# No longer complete while it is rebuilt (for another AVX-512 choice).
rm -f "$PREFIX/.complete"
BUILD="$CACHE_ROOT/src/build-server-$LLAMA_CPP_PYTHON_VERSION"
log "configuring (AVX2/FMA/F16C on, AVX-512 $AVX512, AMX off; static, no web UI)"
cmake -S "$SRC" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$PREFIX" \
    -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
    -DGGML_AVX512="$AVX512" \
    -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF \
    -DGGML_OPENMP=OFF \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_BUILD_COMMON=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_APP=OFF >/dev/null
log "building llama-server (several minutes on 2 cores)"
cmake --build "$BUILD" --config Release --target llama-server -j "$(nproc)" >/dev/null
mkdir -p "$PREFIX/bin"
# Through a rename: a server still running the old binary keeps it, and a cut-off copy is never installed.
cp "$BUILD/bin/llama-server" "$BINARY.tmp"
mv -f "$BINARY.tmp" "$BINARY"
mark_complete "$PREFIX"
log "installed $BINARY"
echo "$BINARY"

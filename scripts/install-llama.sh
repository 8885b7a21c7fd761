#!/usr/bin/env bash
# Builds llama.cpp (only libllama + ggml) from the copy vendored in the PyPI sdist of
# llama-cpp-python, and installs it into a cache prefix outside the repository.
# Idempotent: a finished install (marked by .complete) is reused as is.
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION="0.3.36"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/foundation-models"
PREFIX="$CACHE_ROOT/llama-$LLAMA_CPP_PYTHON_VERSION"

if [[ "${1:-}" == "--print-prefix" ]]; then echo "$PREFIX"; exit 0; fi
if [[ "${1:-}" == "--print-version" ]]; then echo "$LLAMA_CPP_PYTHON_VERSION"; exit 0; fi
if [[ -f "$PREFIX/.complete" ]]; then exit 0; fi

log() { echo "[install-llama] $*" >&2; }

if ! command -v cmake >/dev/null 2>&1; then
    log "cmake not found; installing it from Debian"
    apt-get update -qq && apt-get install -y -qq cmake >/dev/null
fi
command -v pkg-config >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq pkg-config >/dev/null; }

WORK="$CACHE_ROOT/src"
mkdir -p "$WORK"
SDIST="$WORK/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz"
if [[ ! -f "$SDIST" ]]; then
    log "downloading llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION (source package) from PyPI"
    python3 -m pip download --quiet --no-deps -d "$WORK" "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION"
fi
SRC="$WORK/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION"
if [[ ! -d "$SRC/vendor/llama.cpp" ]]; then
    tar -xzf "$SDIST" -C "$WORK"
fi

# Explicit ISA flags instead of GGML_NATIVE: reproducible builds, and never AMX
# (AMX instructions fault with a general protection error on these machines).
AVX512=OFF
if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then AVX512=ON; fi
log "configuring (AVX2/FMA/F16C on, AVX-512 $AVX512, AMX off)"
BUILD="$WORK/build-$LLAMA_CPP_PYTHON_VERSION"
cmake -S "$SRC/vendor/llama.cpp" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$PREFIX" \
    -DCMAKE_INSTALL_LIBDIR=lib \
    -DCMAKE_INSTALL_RPATH='$ORIGIN' \
    -DBUILD_SHARED_LIBS=ON \
    -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
    -DGGML_AVX512="$AVX512" \
    -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF \
    -DGGML_OPENMP=OFF \
    -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_APP=OFF >/dev/null
log "building (this takes a few minutes on 2 cores)"
cmake --build "$BUILD" --config Release -j "$(nproc)" >/dev/null
cmake --install "$BUILD" >/dev/null
touch "$PREFIX/.complete"
log "installed into $PREFIX"

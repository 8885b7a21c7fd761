#!/usr/bin/env bash
# Builds llama.cpp (only libllama + ggml) from the copy vendored in the PyPI sdist of
# llama-cpp-python, and installs it into a cache prefix outside the repository.
# Idempotent: a finished install (marked by .complete) is reused as is.
# `--source` only unpacks the source (for install-llama-server.sh) and prints its llama.cpp directory.
set -euo pipefail

source "$(dirname "$0")/llama-build.sh"
PREFIX="$CACHE_ROOT/llama-$LLAMA_CPP_PYTHON_VERSION"

if [[ "${1:-}" == "--print-prefix" ]]; then echo "$PREFIX"; exit 0; fi
if [[ "${1:-}" == "--print-version" ]]; then echo "$LLAMA_CPP_PYTHON_VERSION"; exit 0; fi
SOURCE_ONLY=0
if [[ "${1:-}" == "--source" ]]; then SOURCE_ONLY=1; fi

if [[ $SOURCE_ONLY == 0 ]] && install_complete "$PREFIX"; then exit 0; fi

log() { echo "[install-llama] $*" >&2; }

# One install at a time: two runs at once (make test and make bench) would share the source and build
# directories. Whoever waited finds the other's finished install.
mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.llama.lock"
flock 9
if [[ $SOURCE_ONLY == 0 ]] && install_complete "$PREFIX"; then exit 0; fi

WORK="$CACHE_ROOT/src"
mkdir -p "$WORK"
# A run killed outright leaves its temporary directory behind; under the lock no other run is using one.
rm -rf "$WORK"/download.* "$WORK"/unpack.*
TMP=""
trap '[[ -z $TMP ]] || rm -rf "$TMP"' EXIT

# The download and the unpacked tree go through a temporary directory and a rename, so an interrupted
# pip or tar never leaves a file or a tree that a later run trusts. The tree counts once it has .unpacked.
SDIST="$WORK/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz"
SRC="$WORK/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION"
unpack() {
    if [[ ! -f "$SDIST" ]]; then
        log "downloading llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION (source package) from PyPI"
        TMP=$(mktemp -d "$WORK/download.XXXXXX")
        python3 -m pip download --quiet --no-deps -d "$TMP" "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION"
        mv "$TMP/$(basename "$SDIST")" "$SDIST"
        rm -rf "$TMP"; TMP=""
    fi
    if [[ ! -f "$SRC/.unpacked" ]]; then
        rm -rf "$SRC"
        TMP=$(mktemp -d "$WORK/unpack.XXXXXX")
        # A damaged download (say, a partial one from before downloads went through a rename) is fetched again next time.
        tar -xzf "$SDIST" -C "$TMP" || { rm -f "$SDIST"; log "could not unpack $SDIST; removed it, run again to download it afresh"; exit 1; }
        mv "$TMP/$(basename "$SRC")" "$SRC"
        touch "$SRC/.unpacked"
        rm -rf "$TMP"; TMP=""
    fi
}

if [[ $SOURCE_ONLY == 1 ]]; then unpack; echo "$SRC/vendor/llama.cpp"; exit 0; fi

if ! command -v cmake >/dev/null 2>&1; then
    log "cmake not found; installing it from Debian"
    apt-get update -qq && apt-get install -y -qq cmake >/dev/null
fi
command -v pkg-config >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq pkg-config >/dev/null; }

unpack
# No longer complete while it is rebuilt (for another AVX-512 choice).
rm -f "$PREFIX/.complete"
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
mark_complete "$PREFIX"
log "installed into $PREFIX"

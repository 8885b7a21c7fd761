#!/usr/bin/env bash
# Installs the pinned llama.cpp (libllama + ggml shared libraries, headers, llama.pc and the CMake
# package files) from the cache build into a standard prefix, so that packages depending on
# FoundationModels build and run with plain `swift build` / `swift run`.
#
# Usage: install-library.sh PREFIX            install (idempotent)
#        install-library.sh --uninstall PREFIX  remove what an install put there
#
# The libraries come from scripts/install-llama.sh's cache prefix (built there once, never twice).
# A manifest in PREFIX/share/foundation-models/ records the version and the files installed: a
# matching manifest with all its files present means there is nothing to do, so a later run needs
# neither root nor the cache build.
set -euo pipefail
shopt -s inherit_errexit

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log() { echo "[install] $*" >&2; }
die() { echo "[install] error: $*" >&2; exit 1; }

UNINSTALL=0
if [[ "${1:-}" == "--uninstall" ]]; then UNINSTALL=1; shift; fi
[[ $# -eq 1 && -n "$1" ]] || die "usage: $0 [--uninstall] PREFIX"
[[ "$1" == /* ]] || die "PREFIX must be an absolute path, not '$1'"
PREFIX="$(realpath -m "$1")"
LIBDIR="$PREFIX/lib"
PCDIR="$LIBDIR/pkgconfig"
MANIFEST="$PREFIX/share/foundation-models/llama-install.manifest"
VERSION="llama-cpp-python $("$HERE/install-llama.sh" --print-version)"

is_root() { [[ "$(id -u)" -eq 0 ]]; }
# Debian leaves /sbin off a normal user's PATH.
LDCONFIG="$(command -v ldconfig || echo /sbin/ldconfig)"

# Is the install in PREFIX complete and of the pinned version?
up_to_date() {
    [[ -f "$MANIFEST" ]] || return 1
    [[ "$(head -n 1 "$MANIFEST")" == "$VERSION" ]] || return 1
    local file
    while IFS= read -r file; do
        [[ -e "$PREFIX/$file" || -L "$PREFIX/$file" ]] || return 1
    done < <(tail -n +2 "$MANIFEST")
}

cannot_write() {
    die "cannot write to $PREFIX. Install system-wide as root (sudo make install), or for your user only
  (make install PREFIX=\$HOME/.local, then export the two variables it prints)."
}

uninstall() {
    [[ -f "$MANIFEST" ]] || { log "nothing installed by this project in $PREFIX"; return 0; }
    [[ -w "$MANIFEST" ]] || cannot_write
    local file
    while IFS= read -r file; do rm -f "$PREFIX/$file"; done < <(tail -n +2 "$MANIFEST")
    rm -f "$MANIFEST"
    rmdir -p --ignore-fail-on-non-empty "$LIBDIR/cmake/llama" "$LIBDIR/cmake/ggml" "$PCDIR" \
        "$(dirname "$MANIFEST")" 2>/dev/null || true
    if is_root; then "$LDCONFIG"; fi
    log "removed llama.cpp from $PREFIX"
}

# Copies $1 to $2 through a temporary file and a rename, so programs that have the old library
# mapped keep running, and an interrupted copy never leaves half a file behind.
put() {
    local tmp
    tmp="$(dirname "$2")/.$(basename "$2").tmp$$"
    cp "$1" "$tmp" && chmod "$3" "$tmp" && mv -f "$tmp" "$2"
}

# The cache build to copy. Under sudo, the invoking user's finished build (from `make setup`) is
# used rather than building a second one in root's cache.
cache_build() {
    if [[ -n "${SUDO_USER:-}" ]] && is_root; then
        local home user_build
        home="$(getent passwd "$SUDO_USER" | cut -d: -f6)"
        user_build="$home/.cache/foundation-models/$(basename "$("$HERE/install-llama.sh" --print-prefix)")"
        if [[ -n "$home" && -f "$user_build/.complete" ]]; then echo "$user_build"; return; fi
    fi
    "$HERE/install-llama.sh" >&2
    "$HERE/install-llama.sh" --print-prefix
}

install_files() {
    # Find out whether PREFIX is writable before spending minutes on a build.
    mkdir -p "$PREFIX/include" "$PCDIR" "$LIBDIR/cmake/llama" "$LIBDIR/cmake/ggml" "$(dirname "$MANIFEST")" \
        2>/dev/null || cannot_write
    [[ -w "$LIBDIR" && -w "$PREFIX/include" ]] || cannot_write
    local source
    source="$(cache_build)"

    local files=() path name
    for path in "$source"/lib/libllama.so* "$source"/lib/libggml*.so*; do
        name="lib/$(basename "$path")"
        if [[ -L "$path" ]]; then
            ln -sfn "$(readlink "$path")" "$PREFIX/$name"
        else
            put "$path" "$PREFIX/$name" 0755
        fi
        files+=("$name")
    done
    for path in "$source"/include/*.h; do
        name="include/$(basename "$path")"
        put "$path" "$PREFIX/$name" 0644
        files+=("$name")
    done
    # CMake's package files locate the prefix relative to themselves, so they are correct anywhere.
    for path in "$source"/lib/cmake/llama/*.cmake "$source"/lib/cmake/ggml/*.cmake; do
        name="lib/cmake/$(basename "$(dirname "$path")")/$(basename "$path")"
        put "$path" "$PREFIX/$name" 0644
        files+=("$name")
    done

    # llama.cpp writes its absolute install prefix into llama.pc when CMake configures the build, so
    # the cache's copy points at the cache. Write one for this prefix instead.
    local version pc
    version="$(sed -n 's/^Version: *//p' "$source/lib/pkgconfig/llama.pc")"
    pc="$(mktemp)"
    cat >"$pc" <<EOF
prefix=$PREFIX
exec_prefix=\${prefix}
libdir=\${exec_prefix}/lib
includedir=\${prefix}/include

Name: llama
Description: llama.cpp inference library ($VERSION build, installed for FoundationModels)
Version: $version
Libs: -L\${libdir} -lggml -lggml-base -lllama
Cflags: -I\${includedir}
EOF
    put "$pc" "$PCDIR/llama.pc" 0644
    rm -f "$pc"
    files+=("lib/pkgconfig/llama.pc")

    { echo "$VERSION"; printf '%s\n' "${files[@]}"; } >"$MANIFEST.tmp$$"
    mv -f "$MANIFEST.tmp$$" "$MANIFEST"
    if is_root; then "$LDCONFIG"; fi
    log "installed llama.cpp ($VERSION) into $PREFIX"
}

# Does the dynamic loader find libllama in LIBDIR without LD_LIBRARY_PATH?
loader_finds_it() {
    "$LDCONFIG" -p 2>/dev/null | grep -qF "=> $LIBDIR/libllama.so.0"
}

# Does SwiftPM find llama.pc in PCDIR without PKG_CONFIG_PATH? SwiftPM searches a fixed list of
# directories plus those pkg-config reports, when pkg-config is installed.
pkg_config_finds_it() {
    local paths="/usr/local/lib/pkgconfig:/usr/local/share/pkgconfig:/usr/lib/pkgconfig:/usr/share/pkgconfig"
    if command -v pkg-config >/dev/null 2>&1; then
        paths="$paths:$(env -u PKG_CONFIG_PATH pkg-config --variable pc_path pkg-config 2>/dev/null || true)"
    fi
    [[ ":$paths:" == *":$PCDIR:"* ]]
}

if [[ $UNINSTALL -eq 1 ]]; then uninstall; exit 0; fi

if up_to_date; then
    log "llama.cpp ($VERSION) is already installed in $PREFIX"
else
    install_files
fi
# A system-wide install whose loader cache went stale (or was never refreshed) gets it refreshed.
if is_root && ! loader_finds_it; then "$LDCONFIG"; fi

exports=()
pkg_config_finds_it || exports+=("export PKG_CONFIG_PATH=\"$PCDIR\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}\"")
loader_finds_it || exports+=("export LD_LIBRARY_PATH=\"$LIBDIR\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\"")
if [[ ${#exports[@]} -eq 0 ]]; then
    log "swift build finds llama.cpp through $PCDIR/llama.pc, and programs load it from $LIBDIR"
else
    log "$PREFIX is not searched by default. Add these lines to your shell profile (~/.profile) and"
    log "open a new shell, so that swift build finds llama.pc and the programs it builds find libllama:"
    printf '    %s\n' "${exports[@]}"
fi

# Sourced by install-llama.sh and install-llama-server.sh: where the cache is, which CPU flags a build
# uses, and whether an install in PREFIX was finished for them.

LLAMA_CPP_PYTHON_VERSION="0.3.36"
# A relative XDG_CACHE_HOME is ignored (XDG spec), as in the Swift code.
case ${XDG_CACHE_HOME:-} in /*) CACHE_BASE=$XDG_CACHE_HOME ;; *) CACHE_BASE=$HOME/.cache ;; esac
CACHE_ROOT="$CACHE_BASE/foundation-models"

# Explicit ISA flags instead of GGML_NATIVE: reproducible builds, and never AMX
# (AMX instructions fault with a general protection error on these machines).
AVX512=OFF
if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then AVX512=ON; fi

# .complete records the AVX-512 choice: a build made on an AVX-512 host (a shared home) faults (SIGILL)
# on a host without it, so one that records another choice is rebuilt. A legacy empty .complete is kept.
install_complete() {
    [[ -f "$1/.complete" ]] || return 1
    local recorded
    recorded=$(sed -n 's/^avx512=//p' "$1/.complete")
    [[ -z $recorded || $recorded == "$AVX512" ]]
}

# Written whole through a rename: an empty .complete would pass as a legacy one.
mark_complete() {
    echo "avx512=$AVX512" >"$1/.complete.tmp"
    mv -f "$1/.complete.tmp" "$1/.complete"
}

#!/usr/bin/env bash
# Generates the test LoRA adapter for the default model into the local adapter directory,
# ${XDG_CACHE_HOME:-~/.cache}/foundation-models/adapters/fm-test-adapter.gguf (skipped when present).
# Needs python3 with numpy; the `gguf` package comes from PyPI (pip download, no install).
set -euo pipefail
# A relative XDG_CACHE_HOME is ignored (XDG spec), as in the Swift code.
case ${XDG_CACHE_HOME:-} in /*) CACHE_BASE=$XDG_CACHE_HOME ;; *) CACHE_BASE=$HOME/.cache ;; esac
CACHE_ROOT="$CACHE_BASE/foundation-models"
MODEL="${FM_MODEL_PATH:-$CACHE_ROOT/models/SmolLM2-135M-Instruct.Q4_1.gguf}"
OUT="$CACHE_ROOT/adapters/fm-test-adapter.gguf"
[ -f "$OUT" ] && { echo "$OUT"; exit 0; }
mkdir -p "$CACHE_ROOT/adapters" "$CACHE_ROOT/pip"
# Downloads and the adapter go through temporary names and a rename, so a failed or concurrent run never
# leaves a partial file that a later run trusts. Not *.gguf: the adapter directory lists those.
TMP=""
trap '[[ -z $TMP ]] || rm -rf "$TMP"' EXIT
WHEEL=$(ls "$CACHE_ROOT"/pip/gguf-*.whl 2>/dev/null | head -1 || true)
if [ -z "$WHEEL" ]; then
    TMP=$(mktemp -d "$CACHE_ROOT/pip/download.XXXXXX")
    python3 -m pip download --no-deps --only-binary=:all: -d "$TMP" "gguf==0.19.0" >&2
    WHEEL="$CACHE_ROOT/pip/$(basename "$(ls "$TMP"/gguf-*.whl | head -1)")"
    mv "$TMP/$(basename "$WHEEL")" "$WHEEL"
    rm -rf "$TMP"; TMP=""
fi
TMP=$(mktemp "$OUT.XXXXXX")
# mktemp makes the file 0600; give it the mode a plain write would have.
chmod "$(printf '%o' $((0666 & ~$(umask))))" "$TMP"
PYTHONPATH="$WHEEL" python3 "$(dirname "$0")/make-test-adapter.py" "$MODEL" "$TMP"
mv "$TMP" "$OUT"
TMP=""
echo "$OUT"

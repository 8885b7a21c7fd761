#!/usr/bin/env bash
# Generates the test LoRA adapter for the default model into the local adapter directory,
# ${XDG_CACHE_HOME:-~/.cache}/foundation-models/adapters/fm-test-adapter.gguf (skipped when present).
# Needs python3 with numpy; the `gguf` package comes from PyPI (pip download, no install).
set -euo pipefail
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/foundation-models"
MODEL="${FM_MODEL_PATH:-$CACHE_ROOT/models/SmolLM2-135M-Instruct.Q4_1.gguf}"
OUT="$CACHE_ROOT/adapters/fm-test-adapter.gguf"
[ -f "$OUT" ] && { echo "$OUT"; exit 0; }
mkdir -p "$CACHE_ROOT/adapters" "$CACHE_ROOT/pip"
WHEEL=$(ls "$CACHE_ROOT"/pip/gguf-*.whl 2>/dev/null | head -1 || true)
if [ -z "$WHEEL" ]; then
    python3 -m pip download --no-deps --only-binary=:all: -d "$CACHE_ROOT/pip" "gguf==0.19.0" >&2
    WHEEL=$(ls "$CACHE_ROOT"/pip/gguf-*.whl | head -1)
fi
PYTHONPATH="$WHEEL" python3 "$(dirname "$0")/make-test-adapter.py" "$MODEL" "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "$OUT"

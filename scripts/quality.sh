#!/usr/bin/env bash
# `make quality`: answer quality on every labelled file of the development data, for each catalogue model,
# next to the same model under llama.cpp's own llama-server with `response_format: json_schema` — the
# anchor, built from the same pinned source and started on 127.0.0.1 by this script. Both sides are scored
# by the same code (`fm eval`, `fm eval --predictions`). Prints one table and writes it to
# benchmarks/quality.md with the date, machine and commit. Each of our runs also writes its HTML report
# (`fm eval --html`) to .build/quality/MODEL-FILE.html.
#
#   MODELS="tiny small medium"   catalogue models to run
#   DATA=../shared/eval/dev       directory of labelled JSONL files
#   TEAM=benchmarks/team          texts the team wrote and labelled for the seed schemas: each file is named after
#                                 the `--preset` it is evaluated under (TEAM= skips them)
#   LIMIT=N                       only the first N examples of each file
#   ANCHOR=0                      skip the llama-server anchor
#   FM_THREADS=N                 CPU threads for both sides (default: every core)
#   FM_EVAL_ARGS="..."            extra `fm eval` arguments for our side (e.g. --examples FILE --shots 4)
#   SHOTS=K                       our side also gets K few-shot examples from the evaluated file itself, leave-one-out
#                                 (a text is never its own example); the anchor stays zero-shot. The table then goes
#                                 to benchmarks/quality-fewshot.md
#   LABEL_KEY=FIELD               score the data files' gold in FIELD instead of label/labels, on both sides (e.g.
#                                 labels_ekman for GoEmotions' 7 Ekman groups, domain for clinc150's 10 domains); a
#                                 data file without that field is left out of the run and the table, and said so;
#                                 the team files are left out too. The table then goes to benchmarks/quality-FIELD.md
#                                 (quality-fewshot-FIELD.md with SHOTS)
#   QUALITY_RESULTS=FILE          where the table goes instead (e.g. DATA=benchmarks/unseen TEAM= QUALITY_RESULTS=
#                                 benchmarks/quality-unseen.md for the team's sets in the style of other sources)
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."
MODELS=${MODELS:-"tiny small medium"}
DATA=${DATA:-../shared/eval/dev}
TEAM=${TEAM-benchmarks/team}
LIMIT=${LIMIT:-}
SHOTS=${SHOTS:-}
LABEL_KEY=${LABEL_KEY:-}
ANCHOR=${ANCHOR:-1}
# Checked before minutes of installs and runs: a typo would otherwise surface late, or (ANCHOR) silently skip.
positive() { [[ -z $2 || $2 =~ ^[1-9][0-9]*$ ]] || { echo "[quality] $1 must be an integer >= 1 (or unset), not '$2'" >&2; exit 2; }; }
positive LIMIT "$LIMIT"; positive SHOTS "$SHOTS"; positive FM_THREADS "${FM_THREADS:-}"
[[ $ANCHOR == [01] ]] || { echo "[quality] ANCHOR must be 0 or 1, not '$ANCHOR'" >&2; exit 2; }
FM=.build/release/fm
[[ -x $FM ]] || { echo "build fm first (make release)" >&2; exit 1; }
# A missing data directory would otherwise leave its rows out of the table without a word.
compgen -G "$DATA/*.jsonl" >/dev/null || { echo "no labelled .jsonl files in $DATA (set DATA=DIR)" >&2; exit 1; }
# With LABEL_KEY, the data files where some line gives that field a label; the others have no gold to score under
# it. Lines are read as bytes, as fm reads them: a BOM or invalid UTF-8 makes a line unreadable, not the file.
has_key() { python3 -c 'import json, sys
for line in open(sys.argv[1], "rb"):
    try: record = json.loads(line)
    except ValueError: continue
    if isinstance(record, dict) and record.get(sys.argv[2]) not in (None, "", [], {}): sys.exit(0)
sys.exit(1)' "$1" "$2"; }
if [[ -n $LABEL_KEY ]]; then
    [[ $LABEL_KEY != id && $LABEL_KEY != text ]] || { echo "[quality] LABEL_KEY names a gold field, not '$LABEL_KEY'" >&2; exit 2; }
    # The team files are scored under their presets' own fields, which the main table already has.
    TEAM=""
    # Read once here; the loop below asks this set for every model.
    declare -A KEYED=()
    for file in "$DATA"/*.jsonl; do has_key "$file" "$LABEL_KEY" && KEYED[$file]=1; done
    (( ${#KEYED[@]} > 0 )) || { echo "[quality] no file in $DATA has a '$LABEL_KEY' field (LABEL_KEY)" >&2; exit 2; }
fi
# shellcheck disable=SC2086
$FM model install --quiet $MODELS
SERVER=""
if [[ $ANCHOR == 1 ]]; then SERVER=$(scripts/install-llama-server.sh); fi

WORK=$(mktemp -d)
REPORTS=.build/quality
mkdir -p "$REPORTS"
RESULTS=${QUALITY_RESULTS:-"benchmarks/quality${SHOTS:+-fewshot}${LABEL_KEY:+-${LABEL_KEY//[^A-Za-z0-9_-]/_}}.md"}
trap 'rm -rf "$WORK" "$RESULTS.tmp$$"; [[ -n ${SERVER_PID:-} ]] && kill "$SERVER_PID" 2>/dev/null || true' EXIT
LIMIT_ARGS=()
[[ -n $LIMIT ]] && LIMIT_ARGS=(--limit "$LIMIT")

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

for model in $MODELS; do
    path=$($FM model path "$model")
    if [[ $ANCHOR == 1 ]]; then
        port=$(free_port)
        "$SERVER" -m "$path" --host 127.0.0.1 --port "$port" -c 4096 -t "${FM_THREADS:-$(nproc)}" -np 1 --no-webui \
            >"$WORK/server-$model.log" 2>&1 &
        SERVER_PID=$!
        scripts/wait-healthy.sh "$port" "$SERVER_PID" "$WORK/server-$model.log"
    fi
    for file in "$DATA"/*.jsonl ${TEAM:+"$TEAM"/*.jsonl}; do
        name=$(basename "$file" .jsonl)
        # A team file is scored under the seed schema it is named after; a dev file under its own label sets.
        SCHEMA_ARGS=()
        [[ -n $TEAM && $(dirname "$file") == "$TEAM" ]] && SCHEMA_ARGS=(--preset "$name")
        # LABEL_KEY names the gold field of every file here (TEAM is cleared above).
        KEY_ARGS=()
        if [[ -n $LABEL_KEY ]]; then
            if [[ -z ${KEYED[$file]:-} ]]; then
                echo "[quality] $name has no '$LABEL_KEY' field: left out" >&2
                continue
            fi
            KEY_ARGS=(--label-key "$LABEL_KEY")
        fi
        echo "[quality] $model $name" >&2
        start=$(date +%s.%N)
        SHOT_ARGS=()
        [[ -n $SHOTS ]] && SHOT_ARGS=(--examples "$file" --shots "$SHOTS")
        # shellcheck disable=SC2086
        # Guardrails off: this measures answers, next to an anchor that has no safety checks, and a crisis text the
        # deny list blocks (benchmarks/team/safety.jsonl) would otherwise count as a wrong answer.
        $FM eval "$file" --model "$model" --no-cache --json --guardrails off "${SCHEMA_ARGS[@]}" "${KEY_ARGS[@]}" "${LIMIT_ARGS[@]}" "${SHOT_ARGS[@]}" \
            --html "$REPORTS/$model-$name.html" ${FM_EVAL_ARGS:-} >"$WORK/$model-$name-ours.json"
        end=$(date +%s.%N)
        python3 -c "print(round($end - $start, 1))" >"$WORK/$model-$name-ours.seconds"
        if [[ $ANCHOR == 1 ]]; then
            $FM eval "$file" --print-schema "${SCHEMA_ARGS[@]}" "${KEY_ARGS[@]}" "${LIMIT_ARGS[@]}" >"$WORK/$name.schema.json"
            python3 scripts/anchor-eval.py "http://127.0.0.1:$port" "$file" "$WORK/$name.schema.json" \
                "$WORK/$model-$name-anchor.jsonl" ${LIMIT:+"$LIMIT"} >"$WORK/$model-$name-anchor.seconds"
            # An anchor that answered no text of a file (its server refused the schema, say) leaves that cell empty
            # ("—") rather than ending the whole run; fm eval has said why on stderr.
            $FM eval "$file" --predictions "$WORK/$model-$name-anchor.jsonl" --json "${KEY_ARGS[@]}" "${LIMIT_ARGS[@]}" \
                >"$WORK/$model-$name-anchor.json" \
                || echo "[quality] the anchor answered no text of $name ($model): its cell stays empty" >&2
        fi
    done
    if [[ $ANCHOR == 1 ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""; fi
done

# Beside the tracked file first, then a rename: a failing table script leaves the last results in place.
python3 scripts/quality-table.py "$WORK" "$MODELS" "$DATA" "${LIMIT:-all}" "${SHOTS:-0}" "$TEAM" "$LABEL_KEY" >"$RESULTS.tmp$$"
mv -f "$RESULTS.tmp$$" "$RESULTS"
cat "$RESULTS"

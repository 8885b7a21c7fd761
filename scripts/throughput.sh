#!/usr/bin/env bash
# Throughput side by side with llama.cpp's own server, in one run, on identical work: the same texts, the same
# chat messages (ours, replayed), the same schema (`response_format: json_schema` on the anchor), the same
# model file, greedy. For each model: one text at a time and 8 at once on both sides, median single-text
# latency, peak resident memory, the ratios, and how many answers agree. Then `fm serve` against llama-server,
# server against server: the same requests from the same Python client. Prints a table and writes
# benchmarks/RESULTS.md with the date, machine and commit.
#
#   MODELS="tiny medium"  catalogue models (default: tiny and the catalogue default, as `fm model list` marks it)
#   TEXTS=48               texts from benchmarks/tagging-texts.txt
#   PARALLEL=8             concurrent texts on both sides (--parallel; clients on a -np server)
#   ROUNDS=3               rounds per model, each running every setup once; the table gives each figure's
#                          median over the rounds and each ratio's median and range over the rounds, so a
#                          neighbour's load during one setup does not decide a ratio
set -euo pipefail
cd "$(dirname "$0")/.."
FM=.build/release/fm
BENCH=.build/release/fm-bench
TEXTS=${TEXTS:-48}
PARALLEL=${PARALLEL:-8}
ROUNDS=${ROUNDS:-3}
THREADS=${FM_THREADS:-$(nproc)}
# Checked before minutes of installs and servers; a leading zero would read as octal in $((...)).
positive() { [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "[throughput] $1 must be an integer >= 1, not '$2'" >&2; exit 2; }; }
positive TEXTS "$TEXTS"; positive PARALLEL "$PARALLEL"; positive ROUNDS "$ROUNDS"; positive FM_THREADS "$THREADS"
MODELS=${MODELS:-"tiny $($FM model list | awk '$1 == "*" {print $2}')"}
# shellcheck disable=SC2086
$FM model install --quiet $MODELS
SERVER=$(scripts/install-llama-server.sh)
WORK=$(mktemp -d)
RESULTS=benchmarks/RESULTS.md
trap 'rm -rf "$WORK" "$RESULTS.tmp$$"; [[ -n ${SERVER_PID:-} ]] && kill "$SERVER_PID" 2>/dev/null || true' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Replays model $1's requests on the server $SERVER_PID listening on port $2, from 1 and from $PARALLEL clients,
# into $OUT/$1-$3-*.json with its peak RSS in $OUT/$1-$3.rss, then stops that server. $4 is the server's log.
replay() {
    scripts/wait-healthy.sh "$2" "$SERVER_PID" "$4"
    python3 scripts/throughput-anchor.py "http://127.0.0.1:$2" "$WORK/$1-requests.jsonl" 1 >"$OUT/$1-$3-1.json"
    python3 scripts/throughput-anchor.py "http://127.0.0.1:$2" "$WORK/$1-requests.jsonl" "$PARALLEL" >"$OUT/$1-$3-$PARALLEL.json"
    awk '/VmHWM/ {printf "%.0f\n", $2 * 1024}' "/proc/$SERVER_PID/status" >"$OUT/$1-$3.rss"
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

for model in $MODELS; do
  for round in $(seq 1 "$ROUNDS"); do
    OUT="$WORK/round-$round"
    mkdir -p "$OUT"
    echo "[throughput] $model, round $round of $ROUNDS: ours" >&2
    FM_THREADS=$THREADS $BENCH throughput --model "$model" --texts "$TEXTS" --parallel "$PARALLEL" \
        --requests "$WORK/$model-requests.jsonl" >"$OUT/$model-ours.json"
    # A failed text takes no time, so any would flatter our speed: fail, as the anchor's client does. The report
    # (failures read `error CODE`) is kept out of $WORK, which the exit removes.
    errors=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["errors"])' "$OUT/$model-ours.json")
    if [[ $errors != 0 ]]; then
        mkdir -p .build
        cp "$OUT/$model-ours.json" ".build/throughput-$model-ours.json"
        echo "[throughput] $model, round $round: $errors of our taggings failed; see .build/throughput-$model-ours.json" >&2
        exit 1
    fi
    echo "[throughput] $model, round $round of $ROUNDS: llama-server" >&2
    port=$(free_port)
    # One slot per client, each with room for the longest request; continuous batching is the server's default.
    # Flash attention stays at llama.cpp's default on both sides: turning it off made tiny's short tagging
    # prompts 10-17 % faster on this 2-core CPU for llama-server and for us alike, and a 2,500-token prompt
    # 12-25 % slower, so neither side gets it and the ratios compare the same kernels.
    "$SERVER" -m "$($FM model path "$model")" --host 127.0.0.1 --port "$port" -c $((PARALLEL * 2048)) -np "$PARALLEL" \
        -t "$THREADS" --no-webui >"$OUT/$model-server.log" 2>&1 &
    SERVER_PID=$!
    replay "$model" "$port" anchor "$OUT/$model-server.log"

    # fm serve on the same model, sent the same requests by the same client: server against server over HTTP.
    echo "[throughput] $model, round $round of $ROUNDS: fm serve" >&2
    port=$(free_port)
    FM_THREADS=$THREADS $FM serve --model "$model" --port "$port" --concurrency "$PARALLEL" >"$OUT/$model-serve.log" 2>&1 &
    SERVER_PID=$!
    replay "$model" "$port" serve "$OUT/$model-serve.log"
  done
done

# Beside the tracked file first, then a rename: a failing table script leaves the last results in place.
python3 scripts/throughput-table.py "$WORK" "$MODELS" "$PARALLEL" "$ROUNDS" >"$RESULTS.tmp$$"
mv -f "$RESULTS.tmp$$" "$RESULTS"
cat "$RESULTS"

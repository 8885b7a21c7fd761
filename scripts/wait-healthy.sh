#!/usr/bin/env bash
# Waits until the server with process id PID answers GET /health on 127.0.0.1:PORT with 200 (llama-server
# and `fm serve` both do once they can serve). Fails, printing the server's LOG, if the process ends first or
# does not answer within TIMEOUT seconds (default 300), so no benchmark ever measures a server that is not
# there.
#
#   scripts/wait-healthy.sh PORT PID LOG
set -euo pipefail
port=$1 pid=$2 log=$3
deadline=$((SECONDS + ${TIMEOUT:-300}))
while ((SECONDS < deadline)); do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "the server on port $port stopped before it could serve; its log ($log):" >&2
        cat "$log" >&2
        exit 1
    fi
    if python3 - "$port" <<'PY' 2>/dev/null
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/health", timeout=5)
PY
    then exit 0; fi
    sleep 1
done
echo "the server on port $port did not answer /health within ${TIMEOUT:-300} s; its log ($log):" >&2
cat "$log" >&2
exit 1

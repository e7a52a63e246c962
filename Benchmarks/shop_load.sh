#!/usr/bin/env bash
# Shop load figures for docs/PERFORMANCE.md: 10,000 dishes in the database, a section's dish list
# under 64 concurrent clients. Release build, wrk on loopback, /healthz measured in the same run.
#
#   Benchmarks/shop_load.sh [seconds-per-row]      (default 10)
#
# Two kinds of load: saturation (64 connections back to back, throughput as a ratio to /healthz)
# and 64 shoppers each waiting 50 ms between requests (a steady load; latency p50/p99).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

swift build -c release --scratch-path .build-release --product whatweeat >&2
BIN=$(swift build -c release --scratch-path .build-release --show-bin-path)/whatweeat
DATA=$(mktemp -d /tmp/whatweeat-shop-load.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
export DATA_DIR=$DATA PORT LOG_LEVEL=error
"$BIN" migrate --yes >/dev/null  # `user` commands act on an existing site only
"$BIN" user create --admin --email bench@example.com --nickname bench --password benchpass1 >&2
"$BIN" >"$DATA/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do curl -fs "$URL/healthz" >/dev/null && break; sleep 0.2; done

TOKEN=$(curl -fs -X POST "$URL/api/v1/auth/login" -H 'Content-Type: application/json' \
  -d '{"email": "bench@example.com", "password": "benchpass1"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["accessToken"])')
python3 "$(dirname "$0")/add_dishes.py" "$URL" "$TOKEN" 10000
DISHES=$(curl -fs "$URL/api/v1/banchan/sections" | python3 -c 'import json, sys; print(sum(s["dishCount"] for s in json.load(sys.stdin)["sections"]))')
# A cursor deep into the main section (page 100 of 20).
CURSOR=$(python3 - "$URL" <<'PY'
import json, sys, urllib.request
url, cursor = sys.argv[1] + "/api/v1/banchan/sections/main/dishes?limit=100", None
for _ in range(20):
    page = json.load(urllib.request.urlopen(url + (f"&cursor={cursor}" if cursor else "")))
    cursor = page["nextCursor"]
print(cursor)
PY
)

measure() {
  local path=$1; shift
  wrk -t2 -c64 -d"${DURATION}s" --latency "$@" "$URL$path" | python3 "$(dirname "$0")/wrk_summary.py"
}

wrk -t2 -c64 -d2s "$URL/healthz" >/dev/null   # warm-up
PACED="-s $(dirname "$0")/paced.lua"
echo "| load | route | requests/s | ratio to /healthz | p50 ms | p99 ms | non-2xx |"
echo "|---|---|---:|---:|---:|---:|---:|"
read -r BASE BASE50 BASE99 BASEERR <<<"$(measure /healthz)"
echo "| saturation | \`GET /healthz\` (baseline) | $BASE | 1.00 | $BASE50 | $BASE99 | $BASEERR |"
row() {
  local load=$1 label=$2; shift 2
  read -r RPS P50 P99 ERR <<<"$(measure "$@")"
  echo "| $load | $label | $RPS | $(python3 -c "print(f'{$RPS / $BASE:.2f}')") | $P50 | $P99 | $ERR |"
}
row saturation '`GET …/sections/main/dishes` (first page)' /api/v1/banchan/sections/main/dishes
row saturation '`GET …/sections/main/dishes` (page 101)' "/api/v1/banchan/sections/main/dishes?cursor=$CURSOR"
row saturation '`GET /api/v1/banchan/sections` (counts)' /api/v1/banchan/sections
row '64 shoppers, 50 ms apart' '`GET /healthz`' /healthz $PACED
row '64 shoppers, 50 ms apart' '`GET …/sections/main/dishes` (first page)' /api/v1/banchan/sections/main/dishes $PACED
row '64 shoppers, 50 ms apart' '`GET …/sections/main/dishes` (page 101)' "/api/v1/banchan/sections/main/dishes?cursor=$CURSOR" $PACED
echo
echo "($DISHES dishes; $DURATION s per row, 64 connections, wrk -t2, $(nproc) cores shared by wrk and the server, $(date -u +%Y-%m-%d))"

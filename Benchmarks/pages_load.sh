#!/usr/bin/env bash
# What the burger map's pages cost (issue 13), for docs/PERFORMANCE.md. Release build, the seeded
# catalog (67 places, 210 reviews), wrk on loopback, 64 connections, each page beside /healthz in
# the same run. A page renders its frame and subject from the service with Plot; a signed-in page
# also signs an access token for its scripts and counts the inbox's unread notifications. The API
# rows beside a place and a review page read the same subject as JSON: what the page adds to it.
#
#   Benchmarks/pages_load.sh [seconds-per-row]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
swift build -c release --product whatweeat >&2
BIN=$(swift build -c release --show-bin-path)/whatweeat
DATA=$(mktemp -d /tmp/whatweeat-pages-load.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
export DATA_DIR=$DATA PORT LOG_LEVEL=error
"$BIN" >"$DATA/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 300); do curl -fs "$URL/healthz" >/dev/null && break; sleep 0.2; done

# A browser session: sign up through the form (the CSRF cookie and token come from /signup).
JAR="$DATA/cookies"
CSRF=$(curl -fs -c "$JAR" "$URL/signup" | python3 -c 'import re, sys; print(re.search(r"name=\"_csrf\" value=\"([^\"]+)\"", sys.stdin.read()).group(1))')
curl -fs -b "$JAR" -c "$JAR" -o /dev/null -X POST "$URL/signup" \
  --data-urlencode "_csrf=$CSRF" --data-urlencode "email=bench@example.com" --data-urlencode "nickname=벤치마크" --data-urlencode "password=password1"
COOKIE=$(python3 - "$JAR" <<'PY'
import sys
pairs = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip() and not line.startswith("# ")]
print("; ".join(f"{p[5]}={p[6]}" for p in pairs if len(p) >= 7))
PY
)
read -r PLACE REVIEW < <(curl -fs "$URL/api/v1/burger-map/reviews?limit=1" | python3 -c 'import json, sys; r = json.load(sys.stdin)["items"][0]; print(r["place"]["id"], r["id"])')

measure() { wrk -t2 -c64 -d"${DURATION}s" --latency "$@" | python3 "$(dirname "$0")/wrk_summary.py"; }
wrk -t2 -c64 -d2s "$URL/healthz" >/dev/null   # warm-up
read -r BASE P50 P99 ERR <<<"$(measure "$URL/healthz")"
echo "| page | req/s | ratio to /healthz | p50 / p99 ms | non-2xx |"
echo "|---|---:|---:|---:|---:|"
echo "| \`GET /healthz\` (baseline) | $BASE | 1.00 | $P50 / $P99 | $ERR |"
for row in "/map|visitor" "/map/places/$PLACE|visitor" "/api/v1/burger-map/places/$PLACE|visitor" \
           "/map/reviews/$REVIEW|visitor" "/api/v1/burger-map/reviews/$REVIEW|visitor" "/map/feed|visitor" \
           "/map|signed in" "/map/reviews/$REVIEW|signed in"; do
  path=${row%%|*}; who=${row##*|}
  extra=()
  [ "$who" = "signed in" ] && extra=(-H "Cookie: $COOKIE")
  read -r RPS P50 P99 ERR <<<"$(measure "${extra[@]}" "$URL$path")"
  name=$(echo "$path" | sed -E 's/[0-9a-fA-F-]{36}/{id}/')
  echo "| \`GET $name\` ($who) | $RPS | $(python3 -c "print(f'{$RPS / $BASE:.2f}')") | $P50 / $P99 | $ERR |"
done
echo
echo "($DURATION s per row, 64 connections, wrk -t2, $(nproc) cores shared by wrk and the server, $(date +%F))"

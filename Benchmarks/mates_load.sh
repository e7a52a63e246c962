#!/usr/bin/env bash
# Mates figures for docs/PERFORMANCE.md (issue 14). Release build, loopback, one instance.
#
#   Benchmarks/mates_load.sh [seconds-per-row] [people-searching] [pairs] [lines-per-second]
#   (default 10 100000 500 100; CHAT=0 skips the chat load)
#
# 1. `/nearby` with a city's worth of people searching (`seed --synthetic --mates N`, spread over
#    ±11 km around Seoul City Hall, so ~1,500 within the 1.5 km radius of the centre), wrk at 64
#    connections beside `/healthz` and `/api/v1/me` (what signing a request in costs alone) in the
#    same run; then a searching mate's own reads: `/api/v1/mates/profile`, `/state` and
#    `/api/v1/notifications`.
# 2. Chat: 2×pairs sockets held open on the one instance, lines sent on them at a steady rate;
#    each line's delay from its send to the partner's socket (Benchmarks/mates_chat_load.py).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
PEOPLE=${2:-100000}
PAIRS=${3:-500}
RATE=${4:-100}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
python3 -c 'import websockets' 2>/dev/null || python3 -m pip install -q --disable-pip-version-check websockets >/dev/null

if [ -n "${WHATWEEAT_BIN:-}" ]; then  # another binary (an earlier commit's), as pages_load.sh takes it
  BIN=$WHATWEEAT_BIN
else
  swift build -c release --product whatweeat >&2
  BIN=$(swift build -c release --show-bin-path)/whatweeat
fi
DATA=$(mktemp -d /tmp/whatweeat-mates-load.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
export DATA_DIR=$DATA PORT LOG_LEVEL=error BCRYPT_COST=4 AUTH_ATTEMPTS_PER_MINUTE=1000000 MAX_SOCKETS_PER_CLIENT=100000
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
started=$(date +%s)
"$BIN" seed --synthetic --mates "$PEOPLE" --mate-pairs "$PAIRS" --mates-password benchpass1 >&2
echo "(seeded $PEOPLE people searching and $PAIRS pairs in $(( $(date +%s) - started )) s)" >&2
"$BIN" serve >"$DATA/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 300); do curl -fs "$URL/healthz" >/dev/null && break; sleep 0.2; done

TOKEN=$(curl -fs -X POST "$URL/api/v1/auth/login" -H 'Content-Type: application/json' \
  -d '{"email": "mate-1-0@synthetic.whatweeat.invalid", "password": "benchpass1"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["accessToken"])')
NEARBY="/api/v1/mates/nearby?lat=37.5665&lon=126.9780"
curl -fs -H "Authorization: Bearer $TOKEN" "$URL$NEARBY" | python3 -c '
import json, sys
r = json.load(sys.stdin)
people = r["people"]
print("(nearby answers %d people, the nearest at %s m; most wanted: %s)" % (len(people), people[0]["distanceMeters"], ", ".join(r["recommendedTopics"][:3])))' >&2

measure() { wrk -t2 -c64 -d"${DURATION}s" --latency "$@" | python3 "$(dirname "$0")/wrk_summary.py"; }
wrk -t2 -c64 -d2s "$URL/healthz" >/dev/null   # warm-up
read -r BASE P50 P99 ERR <<<"$(measure "$URL/healthz")"
echo "| route | req/s | ratio to /healthz | p50 / p99 ms | non-2xx |"
echo "|---|---:|---:|---:|---:|"
echo "| \`GET /healthz\` (baseline; measured again after every row, each row against the two around it) | $BASE | 1.00 | $P50 / $P99 | $ERR |"
for row in "/api/v1/me|signing in alone" "$NEARBY|$PEOPLE searching, 50 nearest of ~1,500 in range" \
           "/api/v1/mates/profile|a searching mate's own profile" "/api/v1/mates/state|a searching mate's state" \
           "/api/v1/notifications|a searching mate's inbox"; do
  path=${row%%|*}; note=${row##*|}
  read -r RPS P50 P99 ERR <<<"$(measure -H "Authorization: Bearer $TOKEN" "$URL$path")"
  # A shared machine's speed drifts within a run: each row against /healthz measured just before
  # and just after it (the mean of the two), not only against the baseline at the start.
  read -r AFTER _ <<<"$(measure "$URL/healthz")"
  echo "| \`GET ${path%%\?*}\` ($note) | $RPS | $(python3 -c "print(f'{2 * $RPS / ($BASE + $AFTER):.2f}')") | $P50 / $P99 | $ERR |"
  BASE=$AFTER
done
echo
if [ "${CHAT:-1}" = 0 ]; then echo "($DURATION s per wrk row, 64 connections, wrk -t2; $(nproc) cores shared by the clients and the server, $(date +%F))"; exit 0; fi
echo "| chat load | delivered | p50 ms | p95 ms | p99 ms | max ms | lines/s sent |"
echo "|---|---|---:|---:|---:|---:|---:|"
python3 "$(dirname "$0")/mates_chat_load.py" "$URL" benchpass1 "$PAIRS" "$RATE" 30
echo
echo "($DURATION s per wrk row, 64 connections, wrk -t2; $(nproc) cores shared by the clients and the server, $(date +%F))"

#!/usr/bin/env bash
# The 새싹 스터디 apps' hot routes for docs/PERFORMANCE.md (issue 17). Release build, loopback, one
# instance, a fake Firebase project (Tests/support/firebase_tokens.py).
#
#   Benchmarks/sesac_load.sh [seconds-per-row] [people-searching]   (default 10 20000)
#
# The apps poll `GET /v1/queue/myQueueState` every few seconds while searching and call
# `POST /v1/queue/search` on the home map; every call carries a Firebase ID token (RS256, verified
# each time). wrk at 64 connections measures both beside `/healthz` and `/api/v1/me` (signing in by
# our own token) in the same run, with `seed --synthetic --mates N` people searching around Seoul.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
DURATION=${1:-10}
PEOPLE=${2:-20000}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
python3 -m pip install -q --disable-pip-version-check -r Tests/support/requirements-sesac.txt >/dev/null 2>&1

if [ -n "${WHATWEEAT_BIN:-}" ]; then  # another binary (an earlier commit's), as pages_load.sh takes it
  BIN=$WHATWEEAT_BIN
else
  swift build -c release --product whatweeat >&2
  BIN=$(swift build -c release --show-bin-path)/whatweeat
fi
DATA=$(mktemp -d /tmp/whatweeat-sesac-load.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
python3 Tests/support/firebase_tokens.py serve --state "$DATA/firebase.json" >"$DATA/firebase.log" 2>&1 &
FIREBASE=$!
for _ in $(seq 1 100); do [ -s "$DATA/firebase.json" ] && break; sleep 0.1; done
firebase() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$DATA/firebase.json" "$1"; }
export DATA_DIR=$DATA PORT LOG_LEVEL=error BCRYPT_COST=4 AUTH_ATTEMPTS_PER_MINUTE=1000000
export FIREBASE_PROJECT_IDS=$(firebase project_id) FIREBASE_CERTS_URL=$(firebase certs_url)
"$BIN" seed --synthetic --mates "$PEOPLE" --mate-pairs 10 --mates-password benchpass1 >&2
"$BIN" serve >"$DATA/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER $FIREBASE 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 300); do curl -fs "$URL/healthz" >/dev/null && break; sleep 0.2; done

ID_TOKEN=$(python3 -c "import sys; sys.path.insert(0, 'Tests/support'); from firebase_tokens import FakeFirebase; \
print(FakeFirebase.load('$DATA/firebase.json').token('benchAppUser000000000000001', phone='+821099990001'))")
curl -fs -o /dev/null -X POST "$URL/v1/user" -H "idtoken: $ID_TOKEN" --data-urlencode nick=벤치앱 \
  --data birth=1995-06-15T09:00:00.000Z --data gender=1
curl -fs -o /dev/null -X POST "$URL/v1/queue" -H "idtoken: $ID_TOKEN" --data lat=37.5665 --data long=126.9780 --data studylist=swift
TOKEN=$(curl -fs -X POST "$URL/api/v1/auth/login" -H 'Content-Type: application/json' \
  -d '{"email": "mate-1-0@synthetic.whatweeat.invalid", "password": "benchpass1"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["accessToken"])')
curl -fs -X POST "$URL/v1/queue/search" -H "idtoken: $ID_TOKEN" --data lat=37.5665 --data long=126.9780 | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("(search answers %d people nearby)" % len(r["fromQueueDB"]))' >&2

SEARCH_LUA="$DATA/search.lua"
cat >"$SEARCH_LUA" <<'LUA'
wrk.method = "POST"
wrk.body = "lat=37.5665&long=126.9780"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
LUA
measure() { wrk -t2 -c64 -d"${DURATION}s" --latency "$@" | python3 "$ROOT/Benchmarks/wrk_summary.py"; }
wrk -t2 -c64 -d2s "$URL/healthz" >/dev/null   # warm-up
read -r BASE P50 P99 ERR <<<"$(measure "$URL/healthz")"
echo "| route | req/s | ratio to /healthz | p50 / p99 ms | non-2xx |"
echo "|---|---:|---:|---:|---:|"
echo "| \`GET /healthz\` (baseline; measured again after every row, each row against the two around it) | $BASE | 1.00 | $P50 / $P99 | $ERR |"
row() {  # label, then wrk arguments
  local label=$1; shift
  read -r RPS P50 P99 ERR <<<"$(measure "$@")"
  # A shared machine's speed drifts within a run: each row against /healthz measured just before
  # and just after it (the mean of the two), not only against the baseline at the start.
  read -r AFTER _ <<<"$(measure "$URL/healthz")"
  echo "| $label | $RPS | $(python3 -c "print(f'{2 * $RPS / ($BASE + $AFTER):.2f}')") | $P50 / $P99 | $ERR |"
  BASE=$AFTER
}
row "\`GET /api/v1/me\` (our bearer token)" -H "Authorization: Bearer $TOKEN" "$URL/api/v1/me"
row "\`GET /v1/queue/myQueueState\` (ID token, searching)" -H "idtoken: $ID_TOKEN" "$URL/v1/queue/myQueueState"
row "\`POST /v1/queue/search\` ($PEOPLE searching)" -H "idtoken: $ID_TOKEN" -s "$SEARCH_LUA" "$URL/v1/queue/search"
echo
echo "($DURATION s per wrk row, 64 connections, wrk -t2; $(nproc) cores shared by the clients and the server, $(date +%F))"

#!/usr/bin/env bash
# HTTP load figures for docs/PERFORMANCE.md. Release build, wrk on loopback, and the bare
# baseline route (GET /healthz) measured in the same run as every route compared with it.
#
#   Benchmarks/load.sh [seconds-per-route] [connections]     (defaults: 10 s, 64 connections)
#   WHATWEEAT_BIN=/path/to/whatweeat Benchmarks/load.sh      (that binary; no swift build)
#
# Starts its own server on a free port with a temporary SQLite data directory (or
# DATABASE_URL if set), prints a Markdown table, and stops the server. Not part of .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
CONNECTIONS=${2:-64}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

if [ -n "${WHATWEEAT_BIN:-}" ]; then   # that binary; no swift build (as pages_load.sh)
  BIN=$WHATWEEAT_BIN
  [ -x "$BIN" ] || { echo "WHATWEEAT_BIN=$BIN is not an executable" >&2; exit 1; }
else
  swift build -c release --product whatweeat >&2
  BIN=$(swift build -c release --show-bin-path)/whatweeat
fi
DATA=$(mktemp -d /tmp/whatweeat-load.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
# A budget of password checks and e-mail look-ups far above the load, so the email-available row
# measures the look-up (and the limiter's bookkeeping), not the limiter's refusals; room budgets
# far above the 2,000 rooms one device opens for the rotating row.
DATA_DIR=$DATA PORT=$PORT LOG_LEVEL=error AUTH_ATTEMPTS_PER_MINUTE=1000000 \
  MENU_GAME_ROOMS_PER_NETWORK=1000000 MENU_GAME_ROOMS_PER_DEVICE=1000000 "$BIN" >"$DATA/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do curl -fs "$URL/healthz" >/dev/null && break; sleep 0.2; done

# One account, so authenticated routes have a real token and session row to check.
TOKEN=$(curl -fs -X POST "$URL/api/v1/auth/signup" -H 'Content-Type: application/json' \
  -d '{"email": "load@example.com", "password": "password1", "nickname": "load"}' \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["accessToken"])')

# A group with one submission, for the waiting-room routes the app polls.
DEVICE=load-device-token-000001
PIN=$(curl -fs -X POST "$URL/group?token=$DEVICE")
curl -fs -X POST "$URL/group/$PIN" -H 'Content-Type: application/json' \
  -d "{\"gameAnswer\": {\"rice\": true}, \"dislikedFoods\": [], \"pinNumber\": \"$PIN\", \"token\": \"$DEVICE\"}" >/dev/null

# Many groups with one submission each, for the row that polls them in turn.
PINS_FILE="$DATA/pins.txt"
for _ in $(seq 1 2000); do curl -fs -X POST "$URL/group?token=$DEVICE"; echo; done > "$PINS_FILE"
export PINS_FILE

# wrk's --latency output → "requests/s p50 p99" (latencies in ms).
measure_for() {
  local seconds=$1 path=$2; shift 2
  wrk -t2 -c"$CONNECTIONS" -d"${seconds}s" --latency "$@" "$URL$path" | python3 "$(dirname "$0")/wrk_summary.py"
}
measure() { measure_for "$DURATION" "$@"; }
# A shared VM's speed drifts within a run (/healthz alone moved 30 % between runs on 2026-12-02),
# so each row is also compared with a /healthz measured just before it, for half as long.
BESIDE=$(( DURATION / 2 > 2 ? DURATION / 2 : 2 ))

wrk -t2 -c"$CONNECTIONS" -d2s "$URL/healthz" >/dev/null   # warm-up
read -r BASE_RPS BASE_P50 BASE_P99 BASE_ERR <<<"$(measure /healthz)"
echo "| route | requests/s | ratio to /healthz | ratio to the /healthz just before | p50 ms | p99 ms | non-2xx |"
echo "|---|---:|---:|---:|---:|---:|---:|"
echo "| \`GET /healthz\` (baseline) | $BASE_RPS | 1.00 | 1.00 | $BASE_P50 | $BASE_P99 | $BASE_ERR |"
row() {
  local label=$1; shift
  read -r NEAR_RPS _ <<<"$(measure_for "$BESIDE" /healthz)"
  read -r RPS P50 P99 ERR <<<"$(measure "$@")"
  RATIO=$(python3 -c "print(f'{$RPS / $BASE_RPS:.2f}')")
  NEAR_RATIO=$(python3 -c "print(f'{$RPS / $NEAR_RPS:.2f}')")
  echo "| $label | $RPS | $RATIO | $NEAR_RATIO | $P50 | $P99 | $ERR |"
}
row '`GET /readyz` (one database round trip)' /readyz
row '`GET /api/v1/me` (JWT + session lookup)' /api/v1/me -H "Authorization: Bearer $TOKEN"
row '`GET /api/v1/auth/email-available`' "/api/v1/auth/email-available?email=load@example.com"
row '`GET /login` (HTML page, Plot)' /login -H 'Accept: text/html'
row '`GET /menu/random` (iOS app)' /menu/random
row '`GET /group/{pin}/gameresultwait` (iOS app)' "/group/$PIN/gameresultwait?token=$DEVICE"
row '`GET /api/v1/menu-game/groups/{pin}`' "/api/v1/menu-game/groups/$PIN" -H "X-Device-Token: $DEVICE"
row '`GET /group/{pin}/gameresultwait`, 2,000 groups in turn' / -s "$(dirname "$0")/rotate_pins.lua"
echo
echo "($DURATION s per route, $CONNECTIONS connections, wrk -t2, $(nproc) cores shared by wrk and the server, $(date -u +%Y-%m-%d))"

# Live rooms: 100 players on the WebSocket, host closes, time until each hears `closed`.
python3 -c "import websockets" 2>/dev/null || python3 -m pip install -q --disable-pip-version-check websockets >&2
echo
python3 "$(dirname "$0")/live_close.py" "$URL" 100 20

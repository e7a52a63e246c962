#!/usr/bin/env bash
# The LookForRealBurger app's hot routes for docs/PERFORMANCE.md (issue 18). Release build, wrk on
# loopback, one instance.
#
#   Benchmarks/lslp_load.sh [seconds-per-row] [places] [reviews]   (default 10 1000 10000)
#
# The app's map asks for every shop at once (`GET /v1/posts?limit=300000&product_id=…HOUSE_TEST`,
# each shop with its reviews' ids), its feed for 21 reviews at a time, and each review sheet for one
# post. A database is filled with `seed --synthetic`; wrk at 64 connections measures each beside
# `/healthz` and `/api/v1/me` in the same run. "uncached ms" is the median of seven single requests
# that each miss the response cache (another `limit`: for the map the same answer, for the feed
# pages of 21 to 27 reviews). Then the map's first reader after start, and after a write (a mark set
# or cleared on one shop: what the app's map waits after someone else's review or mark).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
DURATION=${1:-10}
PLACES=${2:-1000}
REVIEWS=${3:-10000}
KEY=bench-lslp-key
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

swift build -c release --product whatweeat >&2
BIN=$(swift build -c release --show-bin-path)/whatweeat
DATA=$(mktemp -d /tmp/whatweeat-lslp-load.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
export DATA_DIR=$DATA PORT LOG_LEVEL=error BCRYPT_COST=4 AUTH_ATTEMPTS_PER_MINUTE=1000000 LSLP_API_KEYS=$KEY
"$BIN" seed --synthetic --places "$PLACES" --reviews "$REVIEWS" --reader-password benchpass1 >&2
"$BIN" serve >"$DATA/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 300); do curl -fs "$URL/healthz" >/dev/null && break; sleep 0.2; done

# The app's login: the raw access token (also a bearer token on our own API).
TOKEN=$(curl -fs -X POST "$URL/v1/users/login" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d '{"email": "synthetic-reader@seed.whatweeat.invalid", "password": "benchpass1"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["accessToken"])')
SHOPS="/v1/posts?limit=300000&product_id=LFRB_BURGER_HOUSE_TEST"
FEED="/v1/posts?limit=21&product_id=LFRB_BURGER_HOUSE_REVIEW_TEST"
REVIEW=$(curl -fs "$URL$FEED" -H "SesacKey: $KEY" -H "Authorization: $TOKEN" | python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][0]["post_id"])')
FIRST_MS=$(curl -fs -o "$DATA/shops.json" -w '%{time_total}' "$URL$SHOPS" -H "SesacKey: $KEY" -H "Authorization: $TOKEN" \
  | python3 -c 'import sys; print(f"{float(sys.stdin.read()) * 1000:.1f}")')
python3 - "$DATA/shops.json" >&2 <<'PY'
import json, os, sys
shops = json.load(open(sys.argv[1]))["data"]
print(f"(the map's one request: {len(shops)} shops, {sum(len(s['comments']) for s in shops)} review links, "
      f"{os.path.getsize(sys.argv[1]) / 1e6:.1f} MB)")
PY

# Median of seven requests that each miss the cache (a limit no one asked for yet), in ms.
uncached() {  # path-with-limit-placeholder
  python3 - "$URL" "$1" "$KEY" "$TOKEN" <<'PY'
import statistics, sys, time, urllib.request
url, path, key, token = sys.argv[1:]
times = []
for i in range(7):
    request = urllib.request.Request(url + path.replace("LIMIT", str(21 + i if "REVIEW" in path else 299_990 - i)),
                                      headers={"SesacKey": key, "Authorization": token})
    started = time.perf_counter()
    urllib.request.urlopen(request).read()
    times.append((time.perf_counter() - started) * 1000)
print(f"{statistics.median(times):.1f}")
PY
}

# Median of seven map reads, each the first after a write (a mark set or cleared on one shop
# through the app's own route), in ms: what the app's map waits after someone's review or mark.
after_write() {
  python3 Benchmarks/map_after_write.py "$URL" "$KEY" "$TOKEN" \
    "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["data"][0]["post_id"])' "$DATA/shops.json")" "$SHOPS"
}

measure() { wrk -t2 -c64 -d"${DURATION}s" --timeout 10s --latency "$@" | python3 "$ROOT/Benchmarks/wrk_summary.py"; }
wrk -t2 -c64 -d2s "$URL/healthz" >/dev/null   # warm-up
read -r BASE P50 P99 ERR <<<"$(measure "$URL/healthz")"
echo "| route | req/s | ratio to /healthz | p50 / p99 ms | uncached ms | non-2xx |"
echo "|---|---:|---:|---:|---:|---:|"
echo "| \`GET /healthz\` (baseline) | $BASE | 1.00 | $P50 / $P99 | | $ERR |"
row() {  # label, uncached-path or "", then wrk arguments
  local label=$1 cold=$2; shift 2
  read -r RPS P50 P99 ERR <<<"$(measure "$@")"
  local ms=""; [ -n "$cold" ] && ms=$(uncached "$cold")
  echo "| $label | $RPS | $(python3 -c "print(f'{$RPS / $BASE:.2f}')") | $P50 / $P99 | $ms | $ERR |"
}
APP=(-H "SesacKey: $KEY" -H "Authorization: $TOKEN")
row "\`GET /api/v1/me\` (signing in alone)" "" -H "Authorization: Bearer $TOKEN" "$URL/api/v1/me"
row "\`GET /v1/posts\` the map: every shop ($PLACES)" "/v1/posts?limit=LIMIT&product_id=LFRB_BURGER_HOUSE_TEST" "${APP[@]}" "$URL$SHOPS"
row "\`GET /v1/posts\` the feed (21 reviews)" "/v1/posts?limit=LIMIT&product_id=LFRB_BURGER_HOUSE_REVIEW_TEST" "${APP[@]}" "$URL$FEED"
row "\`GET /v1/posts/{id}\` one review" "" "${APP[@]}" "$URL/v1/posts/$REVIEW"
echo
echo "The map's first reader after start: $FIRST_MS ms; the first reader after a write (median of 7): $(after_write) ms."
echo "($PLACES places, $REVIEWS reviews; $DURATION s per wrk row, 64 connections, wrk -t2; $(nproc) cores shared by the clients and the server, $(date +%F))"

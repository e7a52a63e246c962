#!/usr/bin/env bash
# Burger map scale figures for docs/PERFORMANCE.md (issue 12). Release build, wrk on loopback.
#
#   Benchmarks/burger_load.sh [seconds-per-row] [places] [reviews]   (default 10 100000 1000000)
#
# Two databases are filled with `whatweeat seed --synthetic`: a small one (1,000 places, 10,000
# reviews) and the large one. On each, the same five reads are measured under 64 connections,
# each beside /healthz in the same run: the first and the 500th page of /reviews, a /feed page
# for a reader who follows 500 people, a city-sized box (Seoul, clusters) and a street-sized box
# (pins). The table gives each read's ratio to /healthz and the large/small ratio of its rate.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
PLACES=${2:-100000}
REVIEWS=${3:-1000000}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

swift build -c release --product whatweeat >&2
BIN=$(swift build -c release --show-bin-path)/whatweeat
CITY="126.76,37.41,127.21,37.70"          # Seoul
STREET="126.986,37.549,126.990,37.553"     # a few hundred metres in the middle of it
SERVER=
DATA=
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null; [ -n "$DATA" ] && rm -rf "$DATA"; true; }
trap cleanup EXIT

measure() {
  local path=$1; shift
  wrk -t2 -c64 -d"${DURATION}s" --latency "$@" "$URL$path" | python3 "$(dirname "$0")/wrk_summary.py"
}

# run <label> <places> <reviews>: fills a fresh database, serves it, prints "name rps ratio p50 p99 errors" lines.
run() {
  local label=$1 places=$2 reviews=$3
  DATA=$(mktemp -d /tmp/whatweeat-burger-load.XXXXXX)
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  URL="http://127.0.0.1:$PORT"
  export DATA_DIR=$DATA PORT LOG_LEVEL=error
  local started=$(date +%s)
  "$BIN" seed --synthetic --places "$places" --reviews "$reviews" --reader-password benchpass1 >&2
  echo "# $label: seeded $places places and $reviews reviews in $(( $(date +%s) - started )) s" >&2
  "$BIN" >"$DATA/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 300); do curl -fs "$URL/healthz" >/dev/null && break; sleep 0.2; done
  TOKEN=$(curl -fs -X POST "$URL/api/v1/auth/login" -H 'Content-Type: application/json' \
    -d '{"email": "synthetic-reader@seed.whatweeat.invalid", "password": "benchpass1"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["accessToken"])')
  # The cursor of the 500th page (20 reviews a page).
  CURSOR=$(python3 - "$URL" <<'PY'
import json, sys, urllib.request
url, cursor = sys.argv[1] + "/api/v1/burger-map/reviews?limit=20", None
for _ in range(499):
    page = json.load(urllib.request.urlopen(url + (f"&cursor={cursor}" if cursor else "")))
    cursor = page["nextCursor"]
print(cursor)
PY
)
  local city_clusters street_pins
  local describe='import json, sys
d = json.load(sys.stdin)
clusters, pins = d["clusters"], d["items"]
total = sum(c["count"] for c in clusters)
print(f"{len(clusters)} clusters of {total} places" if clusters else f"{len(pins)} pins")'
  city_clusters=$(curl -fs "$URL/api/v1/burger-map/places?bbox=$CITY" | python3 -c "$describe")
  street_pins=$(curl -fs "$URL/api/v1/burger-map/places?bbox=$STREET" | python3 -c "$describe")
  echo "# $label: city box → $city_clusters; street box → $street_pins" >&2
  wrk -t2 -c64 -d2s "$URL/healthz" >/dev/null   # warm-up
  read -r BASE _ _ _ <<<"$(measure /healthz)"
  echo "healthz $BASE 1.00"
  for row in "reviews-first /api/v1/burger-map/reviews" \
             "reviews-500 /api/v1/burger-map/reviews?cursor=$CURSOR" \
             "me /api/v1/me" \
             "feed /api/v1/burger-map/feed" \
             "city-box /api/v1/burger-map/places?bbox=$CITY" \
             "street-box /api/v1/burger-map/places?bbox=$STREET"; do
    set -- $row
    local extra=()
    [ "$1" = feed ] || [ "$1" = me ] && extra=(-H "Authorization: Bearer $TOKEN")
    # Uncached: the median time of 7 single requests that miss the cache (a zero appended to the
    # box's last number, or an ignored parameter, makes a new cache key for the same answer).
    COLD=$(python3 - "$URL$2" "$TOKEN" "$1" <<'PY'
import sys, time, urllib.request
url, token, name = sys.argv[1], sys.argv[2], sys.argv[3]
times = []
for i in range(7):
    variant = url + "0" * (i + 1) if "bbox=" in url else url + ("&" if "?" in url else "?") + f"cold={time.time_ns()}"
    request = urllib.request.Request(variant, headers={"Authorization": f"Bearer {token}"} if name in ("feed", "me") else {})
    started = time.perf_counter()
    urllib.request.urlopen(request).read()
    times.append((time.perf_counter() - started) * 1000)
print(f"{sorted(times)[3]:.1f}")
PY
)
    read -r RPS P50 P99 ERR <<<"$(measure "$2" "${extra[@]}")"
    echo "$1 $RPS $(python3 -c "print(f'{$RPS / $BASE:.2f}')") $P50 $P99 $ERR $COLD"
  done
  cleanup
  SERVER=
  DATA=
}

SMALL=$(run small 1000 10000)
LARGE=$(run large "$PLACES" "$REVIEWS")
python3 - "$SMALL" "$LARGE" "$PLACES" "$REVIEWS" "$DURATION" <<'PY'
import sys, datetime, os
small = {l.split()[0]: l.split()[1:] for l in sys.argv[1].splitlines()}
large = {l.split()[0]: l.split()[1:] for l in sys.argv[2].splitlines()}
places, reviews, duration = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
names = {
    "reviews-first": "`GET /reviews` (first page)",
    "reviews-500": "`GET /reviews` (500th page)",
    "me": "`GET /api/v1/me` (what signing in costs: JWT + session row; issue 16)",
    "feed": "`GET /feed` (follows 500 people)",
    "city-box": "`GET /places?bbox=` Seoul (clusters)",
    "street-box": "`GET /places?bbox=` a street (pins)",
}
print(f"| route | req/s at 10,000 reviews | ratio to /healthz | req/s at {reviews:,} reviews | ratio to /healthz | p50 / p99 ms (large) | large ÷ small | uncached ms small / large | non-2xx |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
print(f"| `GET /healthz` (baseline) | {small['healthz'][0]} | 1.00 | {large['healthz'][0]} | 1.00 | | | | |")
for key, name in names.items():
    s, l = small[key], large[key]
    print(f"| {name} | {s[0]} | {s[1]} | {l[0]} | {l[1]} | {l[2]} / {l[3]} | {float(l[0]) / float(s[0]):.2f} | {s[5]} / {l[5]} | {int(s[4]) + int(l[4])} |")
print()
print(f"(small: 1,000 places, 10,000 reviews; large: {places:,} places, {reviews:,} reviews; {duration} s per row, 64 connections, "
      f"wrk -t2, {os.cpu_count()} cores shared by wrk and the server, {datetime.date.today()})")
PY

#!/usr/bin/env bash
# Two builds side by side, for a change's before and after (docs/PERFORMANCE.md): both servers up
# at once on the same kind of generated data, wrk rounds alternating between them route by route,
# so a busy neighbour slows both alike. (On these shared machines `/healthz` alone moved between
# 13,600 and 22,700 req/s from one run to the next, and two sequential `pages_load.sh` runs of one
# binary disagreed by up to 46 %.) Prints, per route, each binary's median req/s over the rounds
# and new ÷ old; then each one's median of seven reads of the LookForRealBurger app's whole map
# made right after a write (a mark on a shop), the read the app waits for.
#
#   OLD_BIN=/path/to/old/whatweeat NEW_BIN=/path/to/new/whatweeat [ONLY=text] \
#     Benchmarks/side_by_side.sh [rounds] [seconds] [places] [reviews]   (default 3 5 10000 20000)
#
# `ONLY` keeps the routes whose name holds the text (and `/healthz`), for more rounds of a few.
# Both binaries are release builds you made (`swift build -c release`, one in a worktree of the
# earlier commit). Each gets its own data directory, filled by its own `seed --synthetic`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
SECONDS_PER=${2:-5}
PLACES=${3:-10000}
REVIEWS=${4:-20000}
KEY=bench-side-by-side-key
: "${OLD_BIN:?set OLD_BIN to the earlier build}" "${NEW_BIN:?set NEW_BIN to the build to compare}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PIDS=()
DIRS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "${DIRS[@]}"' EXIT

declare -A URL TOKEN PLACE REVIEW AUTHOR SHOP ORDER DEVICE_ORDER
# A browser's device: its order's page is read with its cookie.
DEVICE=side-by-side-device-0001
for side in old new; do
  bin=$OLD_BIN; [ "$side" = new ] && bin=$NEW_BIN
  data=$(mktemp -d "/tmp/whatweeat-side-$side.XXXXXX"); DIRS+=("$data")
  port=$(free_port)
  export DATA_DIR=$data PORT=$port LOG_LEVEL=error BCRYPT_COST=4 AUTH_ATTEMPTS_PER_MINUTE=1000000 LSLP_API_KEYS=$KEY
  "$bin" seed --synthetic --places "$PLACES" --reviews "$REVIEWS" --reader-password benchpass1 >/dev/null
  "$bin" serve >"$data/server.log" 2>&1 &
  PIDS+=($!)
  URL[$side]="http://127.0.0.1:$port"
  for _ in $(seq 1 300); do curl -fs "${URL[$side]}/healthz" >/dev/null && break; sleep 0.2; done
  # The app's login: its access token is a bearer token on our own API too.
  TOKEN[$side]=$(curl -fs -X POST "${URL[$side]}/v1/users/login" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
    -d '{"email": "synthetic-reader@seed.whatweeat.invalid", "password": "benchpass1"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["accessToken"])')
  read -r PLACE[$side] REVIEW[$side] AUTHOR[$side] < <(curl -fs "${URL[$side]}/api/v1/burger-map/reviews?limit=1" \
    | python3 -c 'import json, sys; r = json.load(sys.stdin)["items"][0]; print(r["place"]["id"].lower(), r["id"].lower(), r["author"]["id"].lower())')
  SHOP[$side]=$(curl -fs "${URL[$side]}/v1/posts?limit=1&product_id=LFRB_BURGER_HOUSE_TEST" -H "SesacKey: $KEY" -H "Authorization: ${TOKEN[$side]}" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][0]["post_id"])')
  # A comment on the review, so its comment list has a row to read.
  curl -fs -o /dev/null -X POST "${URL[$side]}/api/v1/burger-map/reviews/${REVIEW[$side]}/comments" -H "Authorization: Bearer ${TOKEN[$side]}" \
    -H 'Content-Type: application/json' -d '{"text": "나란히 재는 댓글"}'
  # A shop order of two dishes (the reader's), so an order's read and the list have rows to read.
  dishes=$(curl -fs "${URL[$side]}/api/v1/banchan/sections/main/dishes?limit=2" | python3 -c 'import json, sys; print(json.dumps([{"hash": d["hash"], "quantity": 1} for d in json.load(sys.stdin)["items"][:2]]))')
  ORDER[$side]=$(curl -fs -X POST "${URL[$side]}/api/v1/banchan/orders" -H "Authorization: Bearer ${TOKEN[$side]}" \
    -H 'Content-Type: application/json' -d "{\"items\": $dishes}" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
  DEVICE_ORDER[$side]=$(curl -fs -X POST "${URL[$side]}/api/v1/banchan/orders" -H "X-Device-Token: $DEVICE" \
    -H 'Content-Type: application/json' -d "{\"items\": $dishes}" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
done

# name|path template|credentials (none, bearer, app)
ROUTES=(
  "/healthz|/healthz|none"
  "/api/v1/me|/api/v1/me|bearer"
  "/map/places/{id}|/map/places/{PLACE}|none"
  "/map/reviews/{id}|/map/reviews/{REVIEW}|none"
  "/map/users/{id}|/map/users/{AUTHOR}|none"
  "/api/v1/burger-map/places/{id}|/api/v1/burger-map/places/{PLACE}|bearer"
  "/api/v1/burger-map/reviews/{id}/comments|/api/v1/burger-map/reviews/{REVIEW}/comments|none"
  "/api/v1/burger-map/places/search?q=버거|/api/v1/burger-map/places/search?q=%EB%B2%84%EA%B1%B0|none"
  "/v1/posts/{shop}|/v1/posts/{SHOP}|app"
  "/v1/posts (feed, 21)|/v1/posts?limit=21&product_id=LFRB_BURGER_HOUSE_REVIEW_TEST|app"
  "/api/v1/banchan/orders/{id}|/api/v1/banchan/orders/{ORDER}|bearer"
  "/api/v1/banchan/orders|/api/v1/banchan/orders|bearer"
  "/shop/orders/{id}|/shop/orders/{DEVICE_ORDER}|device"
)

round() {  # side path credentials → req/s
  local side=$1 path=$2 credentials=$3 headers=()
  path=${path//\{PLACE\}/${PLACE[$side]}}; path=${path//\{REVIEW\}/${REVIEW[$side]}}
  path=${path//\{AUTHOR\}/${AUTHOR[$side]}}; path=${path//\{SHOP\}/${SHOP[$side]}}; path=${path//\{ORDER\}/${ORDER[$side]}}; path=${path//\{DEVICE_ORDER\}/${DEVICE_ORDER[$side]}}
  case $credentials in
    bearer) headers=(-H "Authorization: Bearer ${TOKEN[$side]}") ;;
    app) headers=(-H "SesacKey: $KEY" -H "Authorization: ${TOKEN[$side]}") ;;
    device) headers=(-H "Cookie: wwe_device=$DEVICE") ;;
  esac
  local status
  status=$(curl -s -o /dev/null -w '%{http_code}' "${headers[@]}" "${URL[$side]}$path")
  [[ $status == 2* ]] || { echo "$side $path answered $status" >&2; exit 1; }
  wrk -t2 -c64 -d"${SECONDS_PER}s" --latency "${headers[@]}" "${URL[$side]}$path" | python3 Benchmarks/wrk_summary.py | cut -d' ' -f1
}

median() { python3 -c 'import statistics, sys; print(int(statistics.median(float(x) for x in sys.argv[1:])))' "$@"; }

printf '| route | old req/s | new req/s | new ÷ old |\n|---|---:|---:|---:|\n'
for route in "${ROUTES[@]}"; do
  IFS='|' read -r name path credentials <<<"$route"
  [[ -z ${ONLY:-} || $name == "/healthz" || $name == *"$ONLY"* ]] || continue
  olds=(); news=()
  for r in $(seq 1 "$ROUNDS"); do
    # Alternate which goes first, so neither always follows the other's warm-up.
    if (( r % 2 )); then olds+=("$(round old "$path" "$credentials")"); news+=("$(round new "$path" "$credentials")")
    else news+=("$(round new "$path" "$credentials")"); olds+=("$(round old "$path" "$credentials")"); fi
  done
  old=$(median "${olds[@]}"); new=$(median "${news[@]}")
  printf '| `%s` | %s | %s | %.2f |\n' "$name" "$old" "$new" "$(python3 -c "print($new / $old)")"
done

# The app's whole map, each read the first after a write (a mark set or cleared on one shop).
after_write() {  # side → median ms
  python3 Benchmarks/map_after_write.py "${URL[$1]}" "$KEY" "${TOKEN[$1]}" "${SHOP[$1]}" "/v1/posts?limit=300000&product_id=LFRB_BURGER_HOUSE_TEST"
}
printf '\nThe app'"'"'s map (%s shops), first read after a write, median of 7: old %s ms, new %s ms\n' "$PLACES" "$(after_write old)" "$(after_write new)"

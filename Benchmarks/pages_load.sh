#!/usr/bin/env bash
# What every page costs, for docs/PERFORMANCE.md: each HTML page of each feature (home and
# accounts, the inbox, the menu game, the shop, the burger map, mates) as a visitor and signed in
# (signed in only where the page requires it), then the JSON reads the pages' scripts and the apps
# call, in one table. Release build, the seeded catalogs (223 menus, 45 dishes, 67 burger places
# with 210 reviews) plus a few generated mates, wrk on loopback, 64 connections, every row as a
# ratio to `GET /healthz` in the same run (measured at the start, after every 16 rows and at the
# end; each row against the two around it; the table is printed when all rows are done).
#
#   Benchmarks/pages_load.sh [seconds-per-row]   (default 10)
#   WHATWEEAT_BIN=/path/to/whatweeat Benchmarks/pages_load.sh 1   (that binary; no swift build)
#   ROWS='^/mates' Benchmarks/pages_load.sh 4   (only the rows whose page matches the pattern)
#   HOLD=1 Benchmarks/pages_load.sh   (set everything up, print the cookies and paths, keep serving)
#
# Who asks:
# - visitor: a returning browser that is not signed in; it has done the menu game's onboarding,
#   has a cart with a dish and an order placed from it, and hosts the two groups below.
# - signed in: an account made through the sign-up form, with the same menu game onboarding,
#   cart and order, one notification (the admin follows it) and a follow of its own.
# - signed in, verified mate / matched mate: generated mates (`seed --synthetic --mates`), one
#   searching near Seoul City Hall and one of a matched pair (the chat, review and report pages).
# - signed in, admin: `user create --admin` (the menu game's feedback inbox is for admins only).
# Every browser row sends its browser's whole cookie jar (device, CSRF, session, menu game cookies).
#
# The menu game's group pages use two groups the visitor made through the together tab's form:
# one open (lobby, game and waiting room; the visitor and the signed-in browser both submitted
# answers) and one the visitor closed through the API (its result page).
#
# Every row's status is checked with curl just before and just after its load: 2xx, except
# `/map/me`, which is a redirect to one's own profile and must answer exactly that. wrk's
# `non-2xx` count (its "Non-2xx or 3xx responses", i.e. 4xx and 5xx) is printed per row. Any
# failed check or any non-2xx response makes the script exit 1 after printing the table.
#
# Not measured: POST-only routes (forms), WebSockets (/notifications/live, chat and group live
# rooms), redirect-only routes (/join/{pin}), the lobby's QR code image (SVG, not a page),
# /mates/start for a verified mate (it redirects; it is measured for an unverified account).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
ROWS=${ROWS:-.}
HERE=Benchmarks
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
if [ -n "${WHATWEEAT_BIN:-}" ]; then
  BIN=$WHATWEEAT_BIN
  [ -x "$BIN" ] || { echo "WHATWEEAT_BIN=$BIN is not an executable" >&2; exit 1; }
else
  swift build -c release --product whatweeat >&2
  BIN=$(swift build -c release --show-bin-path)/whatweeat
fi
DATA=$(mktemp -d /tmp/whatweeat-pages-load.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
# Resources/, Public/ and openapi.yaml from this checkout, wherever the binary is. A low bcrypt
# cost only makes the setup's sign-ups and logins quick; no measured row hashes a password.
export DATA_DIR=$DATA PORT LOG_LEVEL=error BCRYPT_COST=4 RESOURCES_DIR=${RESOURCES_DIR:-$PWD}
SERVER=
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null; rm -rf "$DATA"; true; }
trap cleanup EXIT
die() { echo "pages_load.sh: $*" >&2; exit 1; }

PASSWORD=benchpass1
MATES=20
"$BIN" seed --synthetic --mates "$MATES" --mate-pairs 1 --mates-password "$PASSWORD" >&2
"$BIN" user create --admin --email admin@example.com --nickname 벤치관리자 --password "$PASSWORD" >&2
"$BIN" serve >"$DATA/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 300); do curl -fs "$URL/healthz" >/dev/null && break; sleep 0.2; done
curl -fs "$URL/healthz" >/dev/null || die "the server did not start; its log: $(tail -20 "$DATA/server.log")"

# --- Browsers ---------------------------------------------------------------------------------

# cookie_header JAR: the jar's cookies as one Cookie header value.
cookie_header() {
  python3 - "$1" <<'PY'
import sys
pairs = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip() and not line.startswith("# ")]
print("; ".join(f"{p[5]}={p[6]}" for p in pairs if len(p) >= 7))
PY
}
# jar_cookie JAR NAME: one cookie's value.
jar_cookie() {
  python3 - "$1" "$2" <<'PY'
import sys
for line in open(sys.argv[1]):
    p = line.rstrip("\n").split("\t")
    if len(p) >= 7 and p[5] == sys.argv[2]:
        print(p[6]); break
else:
    sys.exit(f"no {sys.argv[2]} cookie in {sys.argv[1]}")
PY
}
# status JAR PATH: "code redirect-path" of a GET with the jar.
status() {
  local out
  out=$(curl -s -o /dev/null -b "$1" -c "$1" -w '%{http_code} %{redirect_url}' "$URL$2")
  echo "${out/$URL/}"
}
# csrf JAR PATH: the form token on the page at PATH, read with (and into) the jar.
csrf() {
  curl -fs -b "$1" -c "$1" "$URL$2" | python3 -c '
import re, sys
m = re.search(r"name=\"_csrf\" value=\"([^\"]+)\"", sys.stdin.read())
sys.exit("no _csrf field on " + sys.argv[1]) if m is None else print(m.group(1))' "$2"
}
# post JAR PATH FORM-PAGE [curl form args…]: submits a form as the browser would (the token from
# FORM-PAGE); prints the path it redirects to, and fails unless it redirects.
post() {
  local jar=$1 path=$2 page=$3 token out code
  shift 3
  token=$(csrf "$jar" "$page")
  out=$(curl -s -b "$jar" -c "$jar" -o /dev/null -w '%{http_code} %{redirect_url}' -X POST "$URL$path" \
    --data-urlencode "_csrf=$token" "$@")
  code=${out%% *}
  [[ $code == 3* ]] || die "POST $path answered $code, not a redirect"
  echo "${out#* }" | sed "s|^$URL||"
}
# signin JAR EMAIL: the login form, then a check that /me answers.
signin() {
  post "$1" /login /login --data-urlencode "email=$2" --data-urlencode "password=$PASSWORD" >/dev/null
  [ "$(status "$1" /me)" = "200 " ] || die "$2 is not signed in after the login form"
}
# api_login EMAIL: an access token.
api_login() {
  curl -fs -X POST "$URL/api/v1/auth/login" -H 'Content-Type: application/json' \
    -d "{\"email\": \"$1\", \"password\": \"$PASSWORD\"}" | python3 -c 'import json, sys; print(json.load(sys.stdin)["accessToken"])'
}

VISITOR_JAR="$DATA/visitor.jar" MEMBER_JAR="$DATA/member.jar" MATE_JAR="$DATA/mate.jar" PAIR_JAR="$DATA/pair.jar" ADMIN_JAR="$DATA/admin.jar"
touch "$VISITOR_JAR" "$MEMBER_JAR" "$MATE_JAR" "$PAIR_JAR" "$ADMIN_JAR"

# The signed-in browser: the sign-up form (its session cookie), and a token for the API rows.
MEMBER_EMAIL=bench@example.com
token=$(csrf "$MEMBER_JAR" /signup)
curl -fs -b "$MEMBER_JAR" -c "$MEMBER_JAR" -o /dev/null -X POST "$URL/signup" --data-urlencode "_csrf=$token" \
  --data-urlencode "email=$MEMBER_EMAIL" --data-urlencode "nickname=벤치마크" --data-urlencode "password=$PASSWORD"
[ "$(status "$MEMBER_JAR" /me)" = "200 " ] || die "the sign-up form did not sign the browser in"
TOKEN=$(api_login "$MEMBER_EMAIL")
MEMBER_ID=$(curl -fs -H "Authorization: Bearer $TOKEN" "$URL/api/v1/me" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"].lower())')
signin "$ADMIN_JAR" admin@example.com
signin "$MATE_JAR" "mate-1-0@synthetic.whatweeat.invalid"
signin "$PAIR_JAR" "pair-1-0@synthetic.whatweeat.invalid"

# Menu game: the onboarding (disliked foods saved on the browser, and on the account when signed in).
for jar in "$VISITOR_JAR" "$MEMBER_JAR"; do
  [ "$(post "$jar" /play/preferences /play/welcome --data-urlencode 'disliked[]=SPICY' --data-urlencode next=/play)" = /play ] \
    || die "the onboarding form did not lead back to /play"
done
# Two groups hosted by the visitor, from the together tab's form: one stays open, one is closed.
new_group() {
  local to
  to=$(post "$VISITOR_JAR" /play/together/create /play/together)
  [[ $to =~ ^/play/groups/([0-9]{6})$ ]] || die "creating a group led to $to"
  echo "${BASH_REMATCH[1]}"
}
submit() {
  curl -fs -o /dev/null -X PUT "$URL/api/v1/menu-game/groups/$1/submission" -H "X-Device-Token: $2" \
    -H 'Content-Type: application/json' -d '{"gameAnswer": {"rice": true, "spicy": false, "hangover": true}, "dislikedFoods": ["SPICY"]}'
}
VISITOR_DEVICE=$(jar_cookie "$VISITOR_JAR" wwe_device)
MEMBER_DEVICE=$(jar_cookie "$MEMBER_JAR" wwe_device)
PIN=$(new_group)
CLOSED=$(new_group)
submit "$PIN" "$VISITOR_DEVICE"
submit "$PIN" "$MEMBER_DEVICE"
submit "$CLOSED" "$VISITOR_DEVICE"
submit "$CLOSED" "$MEMBER_DEVICE"
curl -fs -o /dev/null -X POST "$URL/api/v1/menu-game/groups/$CLOSED/close" -H "X-Device-Token: $VISITOR_DEVICE"

# Shop: a dish in stock; each browser orders it from its cart, then puts it in the cart again.
DISH=$(curl -fs "$URL/api/v1/banchan/sections/main/dishes" | python3 -c '
import json, sys
print(next(d["hash"] for d in json.load(sys.stdin)["items"] if not d["soldOut"]))')
for jar in "$VISITOR_JAR" "$MEMBER_JAR"; do
  post "$jar" /shop/cart "/shop/dishes/$DISH" --data-urlencode "hash=$DISH" >/dev/null
  # Checkout asks where it goes: a new address, 택배, card.
  to=$(post "$jar" /shop/orders /shop/checkout --data-urlencode "idempotencyKey=pages-load-$RANDOM$RANDOM" \
    --data-urlencode "addressChoice=new" --data-urlencode "recipient=김반찬" --data-urlencode "phone=010-1234-5678" \
    --data-urlencode "address=서울특별시 중구 세종대로 110" --data-urlencode "addressDetail=101동 1001호" \
    --data-urlencode "slot=parcel" --data-urlencode "paymentMethod=card")
  [[ $to =~ ^/shop/orders/[0-9a-fA-F-]{36}$ ]] || die "placing an order led to $to"
  [ "$jar" = "$VISITOR_JAR" ] && VISITOR_ORDER=${to##*/} || MEMBER_ORDER=${to##*/}
  post "$jar" /shop/cart "/shop/dishes/$DISH" --data-urlencode "hash=$DISH" >/dev/null
done

# Burger map: a seeded review, its place and author; the member follows the author, and the
# admin follows the member (a notification in the member's inbox).
read -r PLACE REVIEW AUTHOR < <(curl -fs "$URL/api/v1/burger-map/reviews?limit=1" \
  | python3 -c 'import json, sys; r = json.load(sys.stdin)["items"][0]; print(r["place"]["id"].lower(), r["id"].lower(), r["author"]["id"].lower())')
ADMIN_TOKEN=$(api_login admin@example.com)
curl -fs -o /dev/null -X PUT "$URL/api/v1/burger-map/users/$AUTHOR/follow" -H "Authorization: Bearer $TOKEN"
curl -fs -o /dev/null -X PUT "$URL/api/v1/burger-map/users/$MEMBER_ID/follow" -H "Authorization: Bearer $ADMIN_TOKEN"

# Mates: the matched mate's search page sends it to its match's chat.
read -r code to <<<"$(status "$PAIR_JAR" /mates/search)"
[[ $to =~ ^/mates/chat/([0-9a-fA-F-]{36})$ ]] || die "the matched mate's /mates/search answered $code $to, not its chat"
MATCH=${BASH_REMATCH[1]}

declare -A COOKIE=(
  [visitor]="$(cookie_header "$VISITOR_JAR")" [member]="$(cookie_header "$MEMBER_JAR")" [mate]="$(cookie_header "$MATE_JAR")"
  [pair]="$(cookie_header "$PAIR_JAR")" [admin]="$(cookie_header "$ADMIN_JAR")"
)
declare -A AS=(
  [visitor]="visitor" [member]="signed in" [mate]="signed in, verified mate" [pair]="signed in, matched mate"
  [admin]="signed in, admin" [anonymous]="no credentials" [bearer]="bearer token"
)

# HOLD=1: stop here with the server up, for profiling one page by hand (perf record -p <pid> under
# wrk with one of these Cookie headers); Ctrl-C ends the server and removes its data.
if [ -n "${HOLD:-}" ]; then
  {
    echo "server $URL, pid $SERVER; data $DATA"
    for who in "${!COOKIE[@]}"; do echo "cookie $who: ${COOKIE[$who]}"; done
    echo "paths: place $PLACE, review $REVIEW, member $MEMBER_ID, match $MATCH, orders $VISITOR_ORDER / $MEMBER_ORDER, groups $PIN / $CLOSED"
  } | tee "$DATA/hold.txt" >&2
  wait "$SERVER"
  exit 0
fi

# --- Measuring --------------------------------------------------------------------------------

measure() { wrk -t2 -c64 -d"${DURATION}s" --latency "$@" | python3 "$HERE/wrk_summary.py"; }
FAILURES=()
wrk -t2 -c64 -d2s "$URL/healthz" >/dev/null   # warm-up
# The baseline is measured at the start, after every 16 rows and at the end; each row's ratio is
# against the mean of the two measured around its block. A shared machine's speed drifts over the
# quarter of an hour the table takes (one run here went from 7,800 to 6,600 /healthz per second),
# and one measurement at the start made every row after a slow or fast moment look wrong.
BASES=()
baseline() {
  local out rps p50 p99 err
  out=$(measure "$URL/healthz")
  read -r rps p50 p99 err <<<"$out"
  [ "$err" = 0 ] || FAILURES+=("GET /healthz: $err non-2xx")
  BASES+=("$rps")
  [ -n "${BASE_LINE:-}" ] || BASE_LINE="$p50 / $p99 | $err"
}
baseline
MEASURED=()
ROWS_SINCE_BASELINE=0

# row FEATURE LABEL WHO PATH [EXPECTED]: one row. WHO is a key of AS; EXPECTED is "2xx" (the
# default) or "3xx PATH" for a redirect that must lead exactly there.
row() {
  local feature=$1 label=$2 who=$3 path=$4 expected=${5:-2xx} args=() got note="" when out rps p50 p99 err
  [[ "$label" =~ $ROWS ]] || return 0
  case $who in
    anonymous) ;;
    bearer) args=(-H "Authorization: Bearer $TOKEN") ;;
    *) args=(-H "Cookie: ${COOKIE[$who]}") ;;
  esac
  for when in before after; do
    if [ "$when" = after ]; then
      out=$(measure "${args[@]}" "$URL$path") || out="0 0.00 0.00 wrk-failed"
      read -r rps p50 p99 err <<<"$out"
    fi
    got=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "${args[@]}" "$URL$path")
    got=${got/$URL/}
    got=${got% }
    if { [ "$expected" = 2xx ] && [[ $got != 2?? ]]; } || { [ "$expected" != 2xx ] && ! [[ $got == 3??" "${expected#3xx } ]]; }; then
      note="$note; $got $when"
      FAILURES+=("GET $path as ${AS[$who]}: answered $got $when the load (expected $expected)")
    fi
  done
  [ "$err" = 0 ] || FAILURES+=("GET $path as ${AS[$who]}: $err non-2xx responses under load")
  [ "$rps" != 0 ] || FAILURES+=("GET $path as ${AS[$who]}: no request completed in $DURATION s")
  MEASURED+=("${#BASES[@]}"$'\t'"$feature"$'\t'"$label"$'\t'"${AS[$who]}"$'\t'"$rps"$'\t'"$p50 / $p99"$'\t'"$err${note:+ (check:${note#;})}")
  ROWS_SINCE_BASELINE=$((ROWS_SINCE_BASELINE + 1))
  if [ "$ROWS_SINCE_BASELINE" -ge 16 ]; then baseline; ROWS_SINCE_BASELINE=0; fi
}
# both FEATURE LABEL PATH: the visitor's row, then the signed-in one.
both() { row "$1" "$2" visitor "$3"; row "$1" "$2" member "$3"; }

F="site"
both "$F" / /
row "$F" /licenses visitor /licenses
row "$F" /login visitor /login
row "$F" /signup visitor /signup
row "$F" /me member /me
row "$F" /logout member /logout
row "$F" /notifications member /notifications

F="menu game"
both "$F" /play /play
both "$F" /play/welcome /play/welcome
both "$F" /play/solo /play/solo
both "$F" /play/solo/game /play/solo/game
both "$F" /play/result /play/result
both "$F" /play/together /play/together
both "$F" "/play/groups/{pin}" "/play/groups/$PIN"
both "$F" "/play/groups/{pin}/game" "/play/groups/$PIN/game"
both "$F" "/play/groups/{pin}/wait" "/play/groups/$PIN/wait"
both "$F" "/play/groups/{pin}/result" "/play/groups/$CLOSED/result"
both "$F" /play/settings /play/settings
row "$F" /play/feedback admin /play/feedback

F="shop"
both "$F" /shop /shop
both "$F" "/shop/dishes/{hash}" "/shop/dishes/$DISH"
both "$F" /shop/cart /shop/cart
both "$F" /shop/orders /shop/orders
row "$F" "/shop/orders/{id}" visitor "/shop/orders/$VISITOR_ORDER"
row "$F" "/shop/orders/{id}" member "/shop/orders/$MEMBER_ORDER"
both "$F" /shop/checkout /shop/checkout
row "$F" /shop/addresses member /shop/addresses

F="console"
for page in /admin /admin/orders /admin/orders/packing /admin/catalog /admin/catalog/menus /admin/catalog/shop /admin/moderation /admin/people /admin/audit; do
  row "$F" "$page" admin "$page"
done

F="burger map"
both "$F" /map /map
both "$F" "/map/places/{id}" "/map/places/$PLACE"
both "$F" "/map/reviews/{id}" "/map/reviews/$REVIEW"
both "$F" /map/feed /map/feed
row "$F" "/map/feed?tab=following" member "/map/feed?tab=following"
both "$F" "/map/users/{id}" "/map/users/$AUTHOR"
row "$F" "/map/users/{my id}" member "/map/users/$MEMBER_ID"
row "$F" "/map/me → /map/users/{my id}" member /map/me "3xx /map/users/$MEMBER_ID"
row "$F" /map/write member /map/write

F="mates"
row "$F" /mates visitor /mates
row "$F" /mates mate /mates
row "$F" /mates/start member /mates/start
row "$F" /mates/profile mate /mates/profile
row "$F" /mates/search mate /mates/search
row "$F" /mates/nearby mate /mates/nearby
row "$F" /mates/shop mate /mates/shop
row "$F" "/mates/chat/{match}" pair "/mates/chat/$MATCH"
row "$F" "/mates/review/{match}" pair "/mates/review/$MATCH"
row "$F" "/mates/report/{match}" pair "/mates/report/$MATCH"

F="API"
row "$F" "/api/v1/burger-map/places/{id}" anonymous "/api/v1/burger-map/places/$PLACE"
row "$F" /api/v1/burger-map/reviews anonymous /api/v1/burger-map/reviews
row "$F" "/api/v1/burger-map/reviews/{id}" anonymous "/api/v1/burger-map/reviews/$REVIEW"
row "$F" /api/v1/me bearer /api/v1/me
row "$F" /api/v1/banchan/sections/main/dishes anonymous /api/v1/banchan/sections/main/dishes
row "$F" /menu/random anonymous /menu/random

[ "$ROWS_SINCE_BASELINE" = 0 ] || baseline
echo "| feature | page | as | req/s | ratio to /healthz | p50 / p99 ms | non-2xx |"
echo "|---|---|---|---:|---:|---:|---:|"
echo "| baseline | \`GET /healthz\` (measured ${#BASES[@]} times: ${BASES[*]}) | no credentials | ${BASES[0]} | 1.00 | $BASE_LINE |"
for line in "${MEASURED[@]}"; do
  IFS=$'\t' read -r block feature label who rps latency err <<<"$line"
  base=$(( (BASES[block - 1] + BASES[block]) / 2 ))
  echo "| $feature | \`GET $label\` | $who | $rps | $(python3 -c "print(f'{$rps / $base:.2f}')") | $latency | $err |"
done
echo
echo "($DURATION s per row, 64 connections, wrk -t2, $(nproc) cores shared by wrk and the server, $(date +%F);" \
  "seeded catalogs, $MATES mates searching and 1 matched pair; \`non-2xx\` is wrk's count of 4xx and 5xx," \
  "each row's status also checked with curl before and after its load)"
if [ ${#FAILURES[@]} -gt 0 ]; then
  echo >&2
  printf 'pages_load.sh: FAILED: %s\n' "${FAILURES[@]}" >&2
  exit 1
fi

#!/usr/bin/env bash
# GET /uploads/{key} beside GET /healthz in the same run, for each place files are kept:
#   Benchmarks/uploads_load.sh [SECONDS] [STORAGE ...]      (STORAGE: disk, database; default both)
# A fresh SQLite data folder per storage, one 300 KB JPEG uploaded as a profile picture, then wrk
# (64 connections, loopback) on the file, on the file with its ETag in If-None-Match (304), and
# on /healthz. WHATWEEAT_BIN picks the binary (default: a release build of this checkout); a
# binary from before UPLOAD_STORAGE existed serves from disk whatever is asked. PostgreSQL: set
# DATABASE_URL (a database the run may fill) to measure files kept there instead of SQLite.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
shift || true
if [ $# -gt 0 ]; then STORAGES=("$@"); else STORAGES=(disk database); fi
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
if [ -n "${WHATWEEAT_BIN:-}" ]; then
  BIN=$WHATWEEAT_BIN
else
  swift build -c release --product whatweeat >&2
  BIN=$(swift build -c release --show-bin-path)/whatweeat
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
SERVER=; DATA=
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null; [ -n "$DATA" ] && rm -rf "$DATA"; true; }
trap cleanup EXIT
rate() { wrk -t2 -c64 -d"${DURATION}s" "$@" | awk '/Requests\/sec/ {print $2}'; }

printf '| storage | /healthz req/s | file req/s | ratio | 304 req/s | ratio |\n|---|---:|---:|---:|---:|---:|\n'
for storage in "${STORAGES[@]}"; do
  DATA=$(mktemp -d /tmp/whatweeat-uploads-load.XXXXXX)
  PORT=$(free_port); URL="http://127.0.0.1:$PORT"
  DATA_DIR=$DATA PORT=$PORT LOG_LEVEL=error BCRYPT_COST=4 RESOURCES_DIR=$PWD UPLOAD_STORAGE=$storage "$BIN" serve >"$DATA/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 300); do curl -fs "$URL/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
  python3 - "$DATA/photo.jpg" <<'PY'
import random, sys
from PIL import Image
random.seed(7)
image = Image.new("RGB", (1200, 900))
image.putdata([(random.randrange(256), random.randrange(256), random.randrange(256)) if (i // 40) % 7 == 0 else (i % 251, (i // 1200) % 241, 120) for i in range(1200 * 900)])
image.save(sys.argv[1], "JPEG", quality=80)
PY
  TOKEN=$(curl -fs -H 'Content-Type: application/json' -d "{\"email\":\"load-$storage@example.com\",\"password\":\"password1\",\"nickname\":\"load$storage\"}" \
    "$URL/api/v1/auth/signup" | python3 -c 'import json, sys; print(json.load(sys.stdin)["accessToken"])')
  PICTURE=$(curl -fs -X PUT -H "Authorization: Bearer $TOKEN" -H 'Content-Type: image/jpeg' --data-binary @"$DATA/photo.jpg" \
    "$URL/api/v1/me/profile-image" | python3 -c 'import json, sys; print(json.load(sys.stdin)["profileImageURL"])')
  ETAG=$(curl -fsI "$URL$PICTURE" | awk 'tolower($1) == "etag:" {print $2}' | tr -d '\r')
  SIZE=$(curl -fs "$URL$PICTURE" | wc -c)
  healthz=$(rate "$URL/healthz")
  file=$(rate "$URL$PICTURE")
  if [ -n "$ETAG" ]; then not_modified=$(rate -H "If-None-Match: $ETAG" "$URL$PICTURE"); else not_modified=0; fi
  python3 -c "import sys; h, f, n = map(float, sys.argv[1:4]); print(f'| {sys.argv[4]} ({sys.argv[5]} bytes) | {h:.0f} | {f:.0f} | {f / h:.2f} | {n:.0f} | {n / h:.2f} |')" \
    "$healthz" "$file" "$not_modified" "$storage" "$SIZE"
  kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=
  rm -rf "$DATA"; DATA=
done

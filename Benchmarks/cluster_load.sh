#!/usr/bin/env bash
# Throughput through nginx with one and with two instances (issue 16), release build, PostgreSQL,
# deploy/'s nginx site. Every figure is beside /healthz answered directly by one instance in the
# same run.
#
#   Benchmarks/cluster_load.sh [seconds-per-row]   (default 10)
#
# Rows: /healthz and GET /api/v1/me (signed in) straight to one instance, then through nginx to
# one instance, then through nginx to two. On a machine with few cores the instances, nginx and
# wrk share them: two instances cannot double anything there, and the table says so honestly.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
dpkg -s nginx-light >/dev/null 2>&1 || dpkg -s nginx >/dev/null 2>&1 || apt-get install -y -qq nginx-light >/dev/null

swift build -c release --product whatweeat >&2
BIN=$(swift build -c release --show-bin-path)/whatweeat
WORK=$(mktemp -d /tmp/whatweeat-cluster-load.XXXXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
source Tests/support/postgres.sh
PIDS=()
cleanup() {
  for pid in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
  stop_postgres
  rm -rf "$WORK"
}
trap cleanup EXIT
start_postgres whatweeat_load
export DATABASE_URL="$PG_URL" JWT_SECRET=$(python3 -c 'import secrets; print(secrets.token_hex(32))') LOG_LEVEL=error \
  TRUSTED_PROXIES=127.0.0.1 AUTH_ATTEMPTS_PER_MINUTE=1000000
PORT_A=$(free_port); PORT_B=$(free_port); PROXY=$(free_port)
for name in a b; do
  port=$([ $name = a ] && echo "$PORT_A" || echo "$PORT_B")
  mkdir -p "$WORK/$name"
  INSTANCE_NAME=web-$name PORT=$port DATA_DIR="$WORK/$name" "$BIN" serve >"$WORK/$name.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
done
TOKEN=$(curl -fs -X POST "http://127.0.0.1:$PORT_A/api/v1/auth/signup" -H 'Content-Type: application/json' \
  -d '{"email": "load@example.com", "password": "password1", "nickname": "loadtest"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["accessToken"])')

# nginx with deploy/'s site: `instances` upstream servers (1 or 2).
start_nginx() {
  [ -f "$WORK/nginx.pid" ] && { kill "$(cat "$WORK/nginx.pid")"; sleep 0.5; }
  local site="$WORK/site.conf"
  sed -e "s/127.0.0.1:8081/127.0.0.1:$PORT_A/" -e "s/127.0.0.1:8082/127.0.0.1:$PORT_B/" \
      -e "s/listen 80;/listen 127.0.0.1:$PROXY;/" deploy/nginx/whatweeat.conf >"$site"
  [ "$1" = 1 ] && sed -i "/127.0.0.1:$PORT_B/d" "$site"
  cat >"$WORK/nginx.conf" <<CONF
worker_processes auto;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 4096; }
http { access_log off; client_body_temp_path $WORK/body; proxy_temp_path $WORK/proxy; include $site; }
CONF
  nginx -c "$WORK/nginx.conf" -p "$WORK"
  sleep 0.5
}

measure() {  # url [wrk options]
  local url=$1; shift
  wrk -t2 -c64 -d"${DURATION}s" --latency "$@" "$url" | python3 Benchmarks/wrk_summary.py
}

read -r BASE _ _ _ <<<"$(measure "http://127.0.0.1:$PORT_A/healthz")"
echo "row requests/s ratio-to-healthz p50-ms p99-ms non-2xx"
echo "healthz-direct $BASE 1.00"
row() {  # label url [wrk options]
  local label=$1; shift
  read -r RPS P50 P99 ERR <<<"$(measure "$@")"
  echo "$label $RPS $(python3 -c "print(f'{$RPS / $BASE:.2f}')") $P50 $P99 $ERR"
}
row me-direct "http://127.0.0.1:$PORT_A/api/v1/me" -H "Authorization: Bearer $TOKEN"
start_nginx 1
row healthz-nginx-1-instance "http://127.0.0.1:$PROXY/healthz"
row me-nginx-1-instance "http://127.0.0.1:$PROXY/api/v1/me" -H "Authorization: Bearer $TOKEN"
start_nginx 2
row healthz-nginx-2-instances "http://127.0.0.1:$PROXY/healthz"
row me-nginx-2-instances "http://127.0.0.1:$PROXY/api/v1/me" -H "Authorization: Bearer $TOKEN"
echo "# cores: $(nproc)"

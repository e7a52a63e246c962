# A throwaway PostgreSQL cluster for tests, started as a non-root user on a free port (sourced by
# .ci/run and Tests/cluster/run). After `start_postgres NAME`, PG_URL names database NAME on it;
# `stop_postgres` removes it all. Installs Debian's postgresql when missing.
PG_DIR=""
start_postgres() {
  local database=$1
  local missing=()
  for package in postgresql postgresql-contrib; do dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package"); done
  if [ ${#missing[@]} -gt 0 ]; then
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -x "$PG_BIN/initdb" ] || PG_BIN=$(dirname "$(command -v initdb)")
  PG_DIR=$(mktemp -d /tmp/whatweeat-pg.XXXXXX)
  PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
    chown postgres "$PG_DIR"
  fi
  as_pg_user "$PG_BIN/initdb" -D "$PG_DIR/data" -U whatweeat --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  # A throwaway cluster: nothing in it must survive a power cut, so it does not wait for the disk
  # (fsync, synchronous commits, full-page writes off). (The pass's length is the schema migrated
  # again per test, which is CPU, not disk: docs/DECISIONS.md, issue 30.)
  as_pg_user "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start >/dev/null
  as_pg_user "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U whatweeat "$database"
  # Without TLS: a local throwaway cluster has none, and asking for it (the default "prefer")
  # makes every connection configuration load the system's certificate bundle — 10 % of the
  # PostgreSQL pass's CPU when each test configures an app.
  PG_URL="postgres://whatweeat@127.0.0.1:$PG_PORT/$database?sslmode=disable"
}
as_pg_user() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
stop_postgres() {
  [ -n "$PG_DIR" ] || return 0
  as_pg_user "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
  PG_DIR=""
}

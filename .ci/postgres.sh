#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: `source .ci/postgres.sh start` exports SECUREPUSH_TEST_DATABASE_URL;
# `.ci/postgres.sh stop DIR` (or `postgres_stop`) stops it and deletes its files.
#
# Debian's `postgresql` package provides the binaries; the cluster lives under a temporary directory, listens on a
# unix socket there and on 127.0.0.1 at a free port, trusts local connections, and runs as the `postgres` user when
# started by root (initdb refuses root).
set -euo pipefail

postgres_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do [ -x "$dir/initdb" ] && { echo "$dir"; return; }; done
  return 1
}

postgres_install() {
  if ! postgres_bin >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
}

postgres_start() {
  postgres_install
  local bin dir port as
  bin="$(postgres_bin)"
  dir="$(mktemp -d /tmp/securepush-pg.XXXXXX)"
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
  as=()
  if [ "$(id -u)" = 0 ]; then
    chown postgres "$dir"
    as=(runuser -u postgres --)
  fi
  "${as[@]}" "$bin/initdb" -D "$dir/data" -U securepush --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c max_connections=300" \
    start >/dev/null
  "${as[@]}" "$bin/createdb" -h "$dir" -p "$port" -U securepush securepush_test
  export SECUREPUSH_TEST_POSTGRES_DIR="$dir"
  export SECUREPUSH_TEST_DATABASE_URL="postgres://securepush@127.0.0.1:$port/securepush_test?sslmode=disable"
  echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($dir)"
}

postgres_stop() {
  local dir="${1:-${SECUREPUSH_TEST_POSTGRES_DIR:-}}"
  [ -n "$dir" ] && [ -d "$dir/data" ] || return 0
  local as=()
  [ "$(id -u)" = 0 ] && as=(runuser -u postgres --)
  "${as[@]}" "$(postgres_bin)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}

case "${1:-}" in
  start) postgres_start ;;
  stop) postgres_stop "${2:-}" ;;
  "") ;; # sourced for its functions
  *) echo "usage: $0 start|stop [DIR]" >&2; exit 2 ;;
esac

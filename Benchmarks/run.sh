#!/usr/bin/env bash
# SecurePush benchmarks: fetch path (store.get over HTTP/2, cleartext and TLS) against an nginx ceiling, the cost of
# metrics on it (SECUREPUSH_METRICS on vs off), send path
# (push.send to a direct-channel device), fan-out into the APNs mock, sign-in (auth.login at bcrypt cost 12 and 10,
# auth.refresh), webhook events per second beside sends with and without an endpoint, and resident memory; then a
# chart of it all. See Benchmarks/README.md and docs/benchmarks.md.
#
#   Benchmarks/run.sh [--smoke] [--out DIR] [--bin-dir DIR]
#                     [--only fetch|fetch-metrics|send|fanout|signin|webhooks|h2core|devices|bounds] [--devices N]
#                     [--keep-work]
#
#   --smoke     seconds-long version for CI (h2load -n 2000, one round)
#   --out DIR   where the JSON results, summary.txt and the service logs go (default: Benchmarks/results)
#   --bin-dir   directory holding release builds of auth-service, store-service, dispatch-service, securepush and
#               securepush-bench
#               (or SECUREPUSH_BENCH_BIN_DIR); default: build them with `swift build -c release`
#   --only      run one benchmark (repeatable); `h2core` (never run by default) compares the HTTP/2 core alone
#               (h2core-bench-server) with nginx (1 worker) and nghttpd, and needs only that binary; `devices`
#               (never run by default, a few minutes) holds one direct-channel event stream per device, each on its
#               own connection, and measures push-dispatch's RSS per device, idle CPU and one push.send to them all;
#               `bounds` (never run by default) sends 40 connections x 100 never-ending requests to one store-service
#               and measures its RSS, the request bytes it buffered and when every stream got 408
#   --devices N how many devices `devices` connects (default 10000; 200 with --smoke)
#   --keep-work keep the temporary work directory (configs, h2load logs)
#
# Everything runs on 127.0.0.1 on free ephemeral ports; every server is stopped on exit.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

smoke=0
out="$here/results"
bin_dir="${SECUREPUSH_BENCH_BIN_DIR:-}"
extra=()
h2core=0
others=0
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) smoke=1 ;;
    --out) out="$2"; shift ;;
    --out=*) out="${1#--out=}" ;;
    --bin-dir) bin_dir="$2"; shift ;;
    --bin-dir=*) bin_dir="${1#--bin-dir=}" ;;
    --only) extra+=(--only "$2"); [ "$2" = h2core ] && h2core=1 || others=1; shift ;;
    --devices) extra+=(--devices "$2"); shift ;;
    --devices=*) extra+=(--devices "${1#--devices=}") ;;
    --keep-work) extra+=(--keep-work) ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

# --- tools: h2load (nghttp2-client), nginx (nginx-light), curl, python3
need=()
command -v h2load >/dev/null 2>&1 || need+=(nghttp2-client)
# nghttpd: nghttp2's own server, the library's ceiling beside nginx's (fetch and h2core)
command -v nghttpd >/dev/null 2>&1 || [ -x /usr/sbin/nghttpd ] || need+=(nghttp2-server)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v python3 >/dev/null 2>&1 || need+=(python3)
# the chart: Debian's matplotlib, for Debian's own python3 (a python3 earlier on PATH, e.g. pyenv's, cannot see it)
/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 || need+=(python3-matplotlib)
if [ ${#need[@]} -gt 0 ]; then
  echo "== installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
  # nginx-light's package starts a system nginx on port 80; the benchmark runs its own private one.
  if [ -x /usr/sbin/service ] && printf '%s\n' "${need[@]}" | grep -qx nginx-light; then
    service nginx stop >/dev/null 2>&1 || true
  fi
fi
export PATH="$PATH:/usr/sbin:/sbin"

# --- binaries: given, or a release build
products=(auth-service store-service dispatch-service securepush securepush-bench)
if [ "$h2core" = 1 ]; then
  if [ "$others" = 1 ]; then products+=(h2core-bench-server); else products=(h2core-bench-server); fi
fi
if [ -z "$bin_dir" ]; then
  echo "== swift build -c release --static-swift-stdlib (set SECUREPUSH_BENCH_BIN_DIR or --bin-dir to use existing binaries)"
  # as the container image builds them (static Swift runtime); one product per command: with several --product
  # flags SwiftPM builds only the last
  for product in "${products[@]}"; do
    (cd "$root" && swift build -c release --static-swift-stdlib --product "$product")
  done
  bin_dir="$(cd "$root" && swift build -c release --show-bin-path)"
fi
for exe in "${products[@]}"; do
  [ -x "$bin_dir/$exe" ] || { echo "no executable $bin_dir/$exe" >&2; exit 1; }
done

mkdir -p "$out"
args=(--bin-dir "$bin_dir" --out "$out")
[ "$smoke" = 1 ] && args+=(--smoke)
if [ ${#extra[@]} -gt 0 ]; then args+=("${extra[@]}"); fi

# The Python driver owns the servers (and stops them in its own cleanup; the kernel sends them SIGTERM if it dies).
# This trap makes sure the driver itself does not outlive the script.
driver=""
cleanup() {
  if [ -n "$driver" ] && kill -0 "$driver" 2>/dev/null; then
    kill -TERM "$driver" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$driver" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$driver" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

start=$(date +%s)
python3 -u "$here/bench.py" "${args[@]}" &
driver=$!
status=0
wait "$driver" || status=$?
driver=""
charted=0  # the chart needs one of its files (`--only fetch-metrics` and `--only h2core` write none)
for name in fetch send fanout signin memory; do [ -f "$out/$name.json" ] && charted=1; done
if [ "$status" = 0 ] && [ "$charted" = 1 ]; then
  /usr/bin/python3 "$here/chart.py" "$out" || status=$?
fi
echo "== run.sh finished in $(( $(date +%s) - start )) s (exit $status)"
exit "$status"

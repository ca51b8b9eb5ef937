#!/usr/bin/env python3
"""SecurePush benchmarks: fetch path (+ nginx ceiling), sign-in, memory.

Started by Benchmarks/run.sh (which installs the tools and finds the binaries); see Benchmarks/README.md.
Only the Python standard library is used. Every server this script starts is bound to 127.0.0.1 on a free
ephemeral port, is a child of this process (killed on exit, and sent SIGTERM by the kernel if this process dies)
and every external command runs under a timeout.
"""

import argparse
import asyncio
import ctypes
import datetime
import functools
import json
import os
import re
import resource
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from h2c import H2Connection, H2Error  # noqa: E402

# ---------------------------------------------------------------------------------------------------------------
# settings

PROFILES = {
    # seconds-long version for CI
    "smoke": {
        "rounds": 1,
        "metrics_rounds": 2,
        "fetch_requests": 2000,
        "fetch_warmup": 200,
        "login_requests": {12: 12, 10: 30},
        "refresh_requests": 300,
        "send_warmup": 50,
        "send_sustained": int(os.environ.get("BENCH_SEND_SUSTAINED", "600")),
        "send_rate_seconds": 1,
        "fanout_devices": 100,
        "fanout_users": 500,
        "devices": 200,
        "devices_idle_seconds": 5,
        "webhook_sends": 300,
        "webhook_rounds": 1,
    },
    # the real thing (a few minutes)
    "full": {
        "rounds": 5,  # a ratio is the median of 5 rounds (issue 33)
        "metrics_rounds": 6,
        "fetch_requests": 100000,
        "fetch_warmup": 5000,
        "login_requests": {12: 100, 10: 400},
        "refresh_requests": 10000,
        "send_warmup": 500,
        "send_sustained": 20000,
        "send_rate_seconds": 10,
        "fanout_devices": 1000,
        "fanout_users": 10000,
        "devices": 10000,
        "devices_idle_seconds": 30,  # two keepalive intervals (15 s): the steady state, not one or two rounds by chance
        "webhook_sends": 5000,
        "webhook_rounds": 3,
    },
}

CLIENTS = 4  # h2load -c
STREAMS = 32  # h2load -m
LOGIN_CLIENTS = 4  # h2load -c for auth.login
LOGIN_STREAMS = 2  # h2load -m for auth.login: 8 in flight is plenty for a 2-thread bcrypt pool
REFRESH_CHAINS = 8  # auth.refresh requests in flight (one token family each)
PAYLOAD_BYTES = int(os.environ.get("BENCH_PAYLOAD_BYTES", "256"))
NGINX_WORKERS = os.environ.get("BENCH_NGINX_WORKERS", "auto")
DISPATCH_CLIENT_ID = "push-dispatch"
DISPATCH_CLIENT_SECRET = "bench-dispatch-secret-0123456789abcdef"  # 38 chars, >= 32
BACKEND_CLIENT_ID = "bench-backend"  # SECUREPUSH_BOOTSTRAP_CLIENT: scope push:send
BACKEND_CLIENT_SECRET = "bench-backend-secret-0123456789abcdef"
SEND_RATES = (200, 1000, 2000)  # issue 33: end-to-end p99 < 25 ms at 2,000/s offered
SEND_CONCURRENCY = 64
FANOUT_CONCURRENCY = 64
# Recipients per push.send in the fan-out's one-call-to-many scenario (issue 29): 10 calls for 10,000 users.
FANOUT_RECIPIENTS_PER_CALL = 1_000
USERNAME = "bench-user"
PASSWORD = "bench-password-123"
ACCESS_TOKEN_TTL = 7200  # raised from 900 s so a long full run never outlives its token

TARGET_RATIO = 0.5  # issue 33: >= 0.5 x nginx in the same run (issue 14 asked 0.25)
TARGET_P99_MS = 10.0  # issue 14: p99 under 10 ms at -c 4 -m 32
TARGET_FETCH_CPU_US = 25.0  # issue 33: store CPU per store.get
TARGET_NODE_RATIO = 1.5  # issue 33: >= 1.5 x the Node peer's requests per second in the same round
TARGET_IDLE_MB = 30.0  # issue 33 (issue 14 asked 40)
TARGET_SENDS_PER_S = 3000.0
TARGET_SEND_P99_MS = 25.0  # end to end at the highest rate offered (issue 33: 2,000/s; issue 14 asked 1,000/s)
TARGET_SEND_CPU_US = 150.0  # issue 33: service CPU per push.send across the three services
TARGET_DELIVERIES_PER_S = 5000.0
TARGET_METRICS_COST_PCT = 5.0
TARGET_DEVICE_RSS_KB = 10.0  # issue 33 (issue 14 asked 16): push-dispatch RSS per connected direct device
TARGET_IDLE_CPU_PCT = 1.0  # issue 33 (issue 14 asked 2): of one core, every device's stream open and idle
TARGET_PUSH_TO_ALL_MS = 1000.0  # issue 33 (issue 14 asked 2 s): push.send's answer until the last device's event
# How the device clients' request fields reach push-dispatch's HPACK decoder: `:authority`, `accept` and
# `authorization` indexed (the default: a client indexing all it may), or BENCH_DEVICE_LITERAL_HEADERS=1 as literals
# (the rounds before issue 33's sixteenth); BENCH_DEVICE_PAD_BYTES=N adds an indexed field N bytes long (the table of
# a long-lived connection whose client indexed a varying field for hours; at most 4000, or it would not fit the table).
def _device_pad_bytes():
    raw = os.environ.get("BENCH_DEVICE_PAD_BYTES", "0")
    if not raw.isdigit() or int(raw) > 4000:
        sys.exit(f"BENCH_DEVICE_PAD_BYTES must be a whole number of bytes from 0 to 4000, not {raw!r}")
    return int(raw)


DEVICE_PAD_BYTES = _device_pad_bytes()
DEVICE_HEADER_OPTIONS = ((["--literal-headers"] if os.environ.get("BENCH_DEVICE_LITERAL_HEADERS") == "1" else [])
                         + ["--pad-bytes", str(DEVICE_PAD_BYTES)])
DEVICES_PER_CLIENT_PROCESS = 2500  # connections per event_streams.py process (each holds one socket per device)
DEVICES_KEEPALIVE_S = 15  # SECUREPUSH_DISPATCH_KEEPALIVE's default: the idle window sees every stream's keepalive
DEVICES_SETTLE_S = 5  # after the last stream opened, before RSS and idle CPU are read
DEVICES_EVENT_TIMEOUT_S = 60  # how long the driver waits for every device's event  # CPU per store.get with metrics on, over off
REGISTER_IN_FLIGHT = 50  # devices.register calls in flight on one connection (the server allows 100 streams)
IDLE_SETTLE_S = 8  # idle RSS is read this long after the last service was healthy (start-up pages go back at 5 s)
LEAK_TOLERANCE_MB = 2.0  # RSS growth from round 1 to the last round above this counts as growth

CMD_TIMEOUT = 600  # seconds, any single h2load/curl invocation
HEALTH_TIMEOUT = 30  # seconds to wait for a service to be healthy


class BenchError(Exception):
    pass


# ---------------------------------------------------------------------------------------------------------------
# processes

_children = []  # (name, Popen)


def _pdeathsig():
    # If this driver dies (even by SIGKILL), the kernel sends SIGTERM to the child.
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def start(name, argv, env, log_path):
    log = open(log_path, "ab")
    proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            preexec_fn=_pdeathsig)
    log.close()
    _children.append((name, proc))
    return proc


def _child_pids(pid):
    """Pids whose parent is `pid` (nginx workers), read from /proc."""
    kids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid:
            kids.append(int(entry))
    return kids


def stop(proc, grace=5.0):
    if proc.poll() is not None:
        return
    kids = _child_pids(proc.pid)
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=grace)
    for kid in kids:  # e.g. nginx workers left behind by a master that had to be killed
        try:
            os.kill(kid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def stop_all():
    while _children:
        name, proc = _children.pop()
        try:
            stop(proc)
        except Exception as exc:  # keep going: every child must be stopped
            print(f"warning: stopping {name} (pid {proc.pid}): {exc}", file=sys.stderr)


def _on_signal(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


def run(argv, timeout=CMD_TIMEOUT, check=True, **kw):
    try:
        res = subprocess.run(argv, capture_output=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"timed out after {timeout}s: {' '.join(argv[:3])} …") from exc
    if check and res.returncode != 0:
        raise BenchError(f"{argv[0]} exited {res.returncode}: {res.stderr.decode(errors='replace')[-2000:]}"
                         f"{res.stdout.decode(errors='replace')[-2000:]}")
    return res


def free_ports(count):
    socks = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def rss_detail_mb(pid):
    """VmRSS split into RssAnon (heap, stacks), RssFile (mapped binary and libraries) and RssShmem, in MB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key = line.split(":", 1)[0]
            if key in ("VmRSS", "RssAnon", "RssFile", "RssShmem", "VmHWM", "Threads"):
                value = int(line.split()[1])
                out[key] = value if key == "Threads" else mb(value)
    return out


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise BenchError(f"no VmRSS for pid {pid}")


CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids):
    """user+system CPU time of the given processes (all their threads), from /proc/<pid>/stat."""
    user, system = cpu_split_seconds(pids)
    return user + system


def minor_faults(pids):
    """Minor page faults of the given processes so far (minflt, field 10 of /proc/<pid>/stat): a code page mapped
    again from the page cache, or a heap page touched for the first time."""
    faults = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            faults += int(f.read().rsplit(")", 1)[1].split()[7])
    return faults


def cpu_split_seconds(pids):
    """(user, system) CPU time of the given processes (all their threads), from /proc/<pid>/stat."""
    user = system = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        user += int(fields[11])  # utime (field 14 of stat)
        system += int(fields[12])  # stime (field 15)
    return user / CLK_TCK, system / CLK_TCK


def children_cpu_seconds():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def mb(kb):
    return round(kb / 1024.0, 1)


# ---------------------------------------------------------------------------------------------------------------
# HTTP/2 calls with curl

def curl_base(url, cacert=None):
    args = ["curl", "-sS", "--max-time", "60"]
    if url.startswith("https://"):
        args += ["--http2", "--cacert", cacert]
    else:
        args += ["--http2-prior-knowledge"]
    return args


def rpc_raw(base_url, method, params, token=None, cacert=None):
    body = json.dumps({"jsonrpc": "2.0", "method": method, "params": params, "id": 1})
    args = curl_base(base_url, cacert) + ["-H", "content-type: application/json", "--data-binary", body]
    if token:
        args += ["-H", f"authorization: Bearer {token}"]
    res = run(args + [base_url + "/rpc"], timeout=90)
    return res.stdout


def rpc(base_url, method, params, token=None, cacert=None):
    raw = rpc_raw(base_url, method, params, token, cacert)
    try:
        reply = json.loads(raw)
    except ValueError as exc:
        raise BenchError(f"{method}: not JSON: {raw[:300]!r}") from exc
    if "result" not in reply:
        raise BenchError(f"{method} failed: {raw[:500]!r}")
    return reply["result"]


def wait_healthy(name, base_url, proc, cacert=None):
    deadline = time.monotonic() + HEALTH_TIMEOUT
    last = b""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BenchError(f"{name} exited with {proc.returncode} before it was healthy")
        res = run(curl_base(base_url, cacert) + ["--max-time", "2", base_url + "/health"], timeout=10, check=False)
        last = res.stdout or res.stderr
        try:
            if res.returncode == 0 and json.loads(res.stdout).get("status") == "ok":
                return
        except ValueError:
            pass
        time.sleep(0.2)
    raise BenchError(f"{name} not healthy after {HEALTH_TIMEOUT}s: {last[:300]!r}")


# ---------------------------------------------------------------------------------------------------------------
# h2load

def h2load(url, n, clients, streams, body_file, headers, log_file=None):
    args = ["h2load", "-n", str(n), "-c", str(clients), "-m", str(streams), "-d", body_file]
    for h in headers:
        args += ["-H", h]
    if log_file:
        args += ["--log-file", log_file]
    args.append(url)
    res = run(args, check=False)
    out = res.stdout.decode(errors="replace")
    if res.returncode != 0:
        raise BenchError(f"h2load exited {res.returncode}: {out[-1500:]}{res.stderr.decode(errors='replace')[-500:]}")
    return parse_h2load(out)


def parse_h2load(out):
    def grab(pattern, cast=float):
        m = re.search(pattern, out)
        if not m:
            raise BenchError(f"unexpected h2load output (no {pattern!r}):\n{out[-1500:]}")
        return [cast(g) for g in m.groups()]

    (finished,) = grab(r"finished in (\S+?), [\d.]+ req/s", str)
    seconds = to_ms(finished) / 1000.0
    (rps,) = grab(r"finished in \S+, ([\d.]+) req/s")
    total, started, done, succeeded, failed, errored, timeout = grab(
        r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, "
        r"(\d+) timeout", int)
    s2, s3, s4, s5 = grab(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", int)
    (data_bytes,) = grab(r"traffic: .*?\((\d+)\) data", int)
    tmin, tmax, tmean, tsd = grab(r"time for request:\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", to_ms)
    return {
        "seconds": seconds, "rps": rps, "total": total, "started": started, "done": done,
        "succeeded": succeeded, "failed": failed, "errored": errored, "timeout": timeout,
        "status_2xx": s2, "status_3xx": s3, "status_4xx": s4, "status_5xx": s5,
        "data_bytes": data_bytes, "time_for_request_ms": {"min": tmin, "max": tmax, "mean": tmean, "sd": tsd},
    }


def to_ms(text):
    m = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    if not m:
        raise BenchError(f"unexpected h2load time {text!r}")
    value, unit = float(m.group(1)), m.group(2)
    return round(value / 1000.0 if unit == "us" else value * 1000.0 if unit == "s" else value, 3)


def check_h2load(label, r, n, body_len=None, tolerance=0.0):
    """Fails unless every request completed with a 2xx and (JSON-RPC errors are HTTP 200 too) the bodies add up
    to n successful responses."""
    problems = []
    if r["succeeded"] != n or r["failed"] or r["errored"] or r["timeout"]:
        problems.append(f"{r['succeeded']}/{n} succeeded, {r['failed']} failed, {r['errored']} errored, "
                        f"{r['timeout']} timeout")
    if r["status_2xx"] != n:
        problems.append(f"{r['status_2xx']}/{n} were 2xx (3xx {r['status_3xx']}, 4xx {r['status_4xx']}, "
                        f"5xx {r['status_5xx']})")
    if body_len is not None:
        expected = n * body_len
        if abs(r["data_bytes"] - expected) > tolerance * expected:
            problems.append(f"response bytes {r['data_bytes']} != {n} x {body_len} = {expected}: some responses "
                            f"were not the expected success body (JSON-RPC errors are HTTP 200 too)")
    if problems:
        raise BenchError(f"{label}: " + "; ".join(problems))


def percentiles(log_file):
    """p50/p90/p99/p99.9/max in ms from h2load --log-file (start µs, status, duration µs per request)."""
    durations = []
    with open(log_file) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3:
                durations.append(int(parts[2]))
    if not durations:
        raise BenchError(f"empty h2load log {log_file}")
    durations.sort()

    def pct(p):  # nearest rank
        k = max(0, min(len(durations) - 1, int(round(p / 100.0 * len(durations) + 0.5)) - 1))
        return round(durations[k] / 1000.0, 3)

    return {"count": len(durations), "p50_ms": pct(50), "p90_ms": pct(90), "p99_ms": pct(99),
            "p99_9_ms": pct(99.9), "max_ms": round(durations[-1] / 1000.0, 3)}


# ---------------------------------------------------------------------------------------------------------------
# results

def machine():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            mem_kb = int(f.readline().split()[1])
    except (OSError, ValueError, IndexError):
        mem_kb = None
    return {"cores": os.cpu_count(), "model": model, "mem_total_mb": mem_kb and mb(mem_kb),
            "kernel": os.uname().release, "loadavg_at_start": os.getloadavg()}


def tool_versions():
    versions = {}
    for name, argv in (("h2load", ["h2load", "--version"]), ("nginx", ["nginx", "-v"]),
                       ("curl", ["curl", "--version"]), ("node", ["node", "--version"])):
        if name == "node" and not shutil.which("node"):
            continue
        try:
            res = run(argv, timeout=10, check=False)
            versions[name] = (res.stdout + res.stderr).decode(errors="replace").splitlines()[0].strip()
        except (BenchError, OSError, IndexError):
            versions[name] = "unknown"
    return versions


def write_result(out_dir, name, settings, figures, extra=None):
    doc = {"benchmark": name,
           "timestamp": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "machine": MACHINE, "settings": settings, "figures": figures}
    if extra:
        doc.update(extra)
    path = os.path.join(out_dir, f"{name}.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=2, sort_keys=False)
        f.write("\n")
    return path


SUMMARY = []


def summary(line):
    SUMMARY.append(line)
    print(line, flush=True)


def met(ok):
    return "MET" if ok else "MISSED"


# ---------------------------------------------------------------------------------------------------------------
# environment for the services

def service_env(work, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SECUREPUSH_")}
    env.update({
        "SECUREPUSH_HOST": "127.0.0.1",
        "SECUREPUSH_LOG_LEVEL": "warning",
        "SECUREPUSH_ENV": "development",
        # The load comes from 127.0.0.1 alone: up to 10,000 device streams and every sign-in of the seeding.
        "SECUREPUSH_MAX_CONNECTIONS_PER_ADDRESS": "20000",
        "SECUREPUSH_BCRYPT_CHECKS_PER_ADDRESS": "0",
    })
    env.update({k: str(v) for k, v in extra.items()})
    backtracer = toolchain_backtracer()
    if backtracer and "SWIFT_BACKTRACE" not in env:
        # Binaries built with --static-swift-stdlib find no backtracer beside themselves ("unable to locate
        # swift-backtrace"): a service crashing mid-benchmark leaves its backtrace in its log, as in the image.
        env["SWIFT_BACKTRACE"] = f"enable=yes,interactive=no,symbolicate=fast,threads=crashed,swift-backtrace={backtracer}"
    return env


@functools.cache
def toolchain_backtracer():
    """The toolchain's swift-backtrace-static (found from its runtime resource path, usr/lib/swift, which a swiftly
    proxy reports too), or None without a toolchain."""
    try:
        info = subprocess.run(["swift", "-print-target-info"], capture_output=True, text=True, timeout=60, check=True)
        resources = json.loads(info.stdout)["paths"]["runtimeResourcePath"]
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        return None
    path = os.path.normpath(os.path.join(resources, "..", "..", "libexec", "swift", "linux", "swift-backtrace-static"))
    return path if os.access(path, os.X_OK) else None


def start_auth(ctx, name, port, cost, extra_env=None):
    data = os.path.join(ctx["work"], name)
    os.makedirs(data, exist_ok=True)
    env = service_env(ctx["work"], **(extra_env or {}), SECUREPUSH_DATA_DIR=data, SECUREPUSH_AUTH_PORT=port,
                      SECUREPUSH_BCRYPT_COST=cost, SECUREPUSH_ACCESS_TOKEN_TTL=ACCESS_TOKEN_TTL,
                      SECUREPUSH_DISPATCH_CLIENT_ID=DISPATCH_CLIENT_ID,
                      SECUREPUSH_DISPATCH_CLIENT_SECRET=DISPATCH_CLIENT_SECRET,
                      SECUREPUSH_BOOTSTRAP_CLIENT_ID=BACKEND_CLIENT_ID,
                      SECUREPUSH_BOOTSTRAP_CLIENT_SECRET=BACKEND_CLIENT_SECRET,
                      # One address signs in thousands of times: no per-address rate limit, and room for the
                      # REFRESH_CHAINS / LOGIN_CLIENTS x LOGIN_STREAMS logins in flight in the bcrypt queue.
                      SECUREPUSH_AUTH_RATE_LIMIT=0, SECUREPUSH_BCRYPT_PER_ADDRESS=16)
    proc = start(name, [os.path.join(ctx["bin"], "auth-service")], env, os.path.join(ctx["logs"], f"{name}.log"))
    url = f"http://127.0.0.1:{port}"
    wait_healthy(name, url, proc)
    return proc, url, data


SOFTHSM_MODULE = "/usr/lib/softhsm/libsofthsm2.so"


def softhsm_signing_key(ctx):
    """A SoftHSM2 token in the work directory holding an ECDSA P-256 key made by `securepush hsm keygen`; returns the
    variables that make auth sign with it (SECUREPUSH_AUTH_SIGNING_KEY=pkcs11:...), or None without softhsm2."""
    if not (os.path.exists(SOFTHSM_MODULE) and shutil.which("softhsm2-util")):
        return None
    home = os.path.join(ctx["work"], "softhsm")
    os.makedirs(os.path.join(home, "tokens"), exist_ok=True)
    conf, pin = os.path.join(home, "softhsm2.conf"), os.path.join(home, "pin")
    with open(conf, "w") as f:
        f.write(f"directories.tokendir = {home}/tokens\nobjectstore.backend = file\nlog.level = ERROR\n")
    with open(pin, "w") as f:
        f.write("1234-bench\n")
    env = dict(os.environ, SOFTHSM2_CONF=conf)
    subprocess.run(["softhsm2-util", "--init-token", "--free", "--label", "securepush", "--pin", "1234-bench",
                    "--so-pin", "5678-bench"], env=env, check=True, stdout=subprocess.DEVNULL, timeout=CMD_TIMEOUT)
    variables = {"SOFTHSM2_CONF": conf, "SECUREPUSH_PKCS11_MODULE": SOFTHSM_MODULE, "SECUREPUSH_PKCS11_PIN_FILE": pin}
    key = "pkcs11:token=securepush;object=auth-signing"
    subprocess.run([os.path.join(ctx["bin"], "securepush"), "hsm", "keygen", "--key", key, "--type", "ec"],
                   env=dict(env, **variables), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=CMD_TIMEOUT)
    return dict(variables, SECUREPUSH_AUTH_SIGNING_KEY=key)


def password_hash_cost(data_dir, username):
    """The bcrypt cost of the stored hash (only its '$2b$NN$' prefix is read), to report the cost actually used."""
    import sqlite3
    conn = sqlite3.connect(f"file:{os.path.join(data_dir, 'auth.sqlite')}?mode=ro", uri=True, timeout=10)
    try:
        row = conn.execute("SELECT substr(password_hash, 1, 7) FROM users WHERE username = ?", (username,)).fetchone()
    finally:
        conn.close()
    m = row and re.match(r"\$2[abxy]?\$(\d+)\$", row[0])
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------------------------------------------------------
# benchmark 1: fetch path + nginx ceiling (+ benchmark 5: memory)

NGINX_CONF = """\
# private nginx answering POST /rpc with fixed bytes (generated by Benchmarks/bench.py)
worker_processes {workers};
daemon off;
master_process on;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    keepalive_requests 1000000;
    keepalive_timeout 120s;
    http2_max_concurrent_streams 128;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
{servers}}}
"""

NGINX_SERVER = """\
    server {{
        listen 127.0.0.1:{port}{tls} http2;
{certificates}        location = /rpc {{ default_type application/json; return 200 '{body}'; }}
    }}
"""


def nginx_conf(prefix, body, clear_port, tls_port=None, cert=None, key=None, workers=NGINX_WORKERS):
    """Writes a private nginx's configuration under `prefix` (and the directories it needs): `return 200 '<body>'` on
    POST /rpc, cleartext HTTP/2 on `clear_port` and, with `tls_port`, HTTP/2 over TLS with `cert`/`key`. Returns
    the configuration file's path."""
    for sub in ("", "client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        os.makedirs(os.path.join(prefix, sub), exist_ok=True)
    quoted = nginx_quote(body)
    servers = NGINX_SERVER.format(port=clear_port, tls="", certificates="", body=quoted)
    if tls_port is not None:
        certificates = (f"        ssl_certificate {cert};\n        ssl_certificate_key {key};\n"
                        "        ssl_protocols TLSv1.2 TLSv1.3;\n")
        servers += NGINX_SERVER.format(port=tls_port, tls=" ssl", certificates=certificates, body=quoted)
    conf = os.path.join(prefix, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF.format(workers=workers, prefix=prefix, servers=servers))
    return conf


def nginx_quote(body):
    text = body.decode()
    if "$" in text or "\n" in text:
        raise BenchError("the static body must not contain '$' or newlines (nginx would interpret them)")
    return text.replace("\\", "\\\\").replace("'", "\\'")


def start_store(ctx, name, port, auth_url, tls=False, **extra):
    """A store-service on its own data directory (TLS with the development certificate when `tls`); `extra` are more
    SECUREPUSH_* variables. Returns (process, base URL); the caller waits for it to be healthy."""
    certs = ctx["certs"]
    data = os.path.join(ctx["work"], name)
    os.makedirs(data, exist_ok=True)
    extra.update(SECUREPUSH_DATA_DIR=data, SECUREPUSH_STORE_PORT=port, SECUREPUSH_AUTH_URL=auth_url,
                 SECUREPUSH_CA_FILE=os.path.join(certs, "ca.pem"))
    if tls:
        extra.update(SECUREPUSH_TLS_CERT_FILE=os.path.join(certs, "notification-store.pem"),
                     SECUREPUSH_TLS_KEY_FILE=os.path.join(certs, "notification-store-key.pem"))
    proc = start(name, [os.path.join(ctx["bin"], "store-service")], service_env(ctx["work"], **extra),
                 os.path.join(ctx["logs"], f"{name}.log"))
    return proc, f"{'https' if tls else 'http'}://127.0.0.1:{port}"


def fetch_user(auth_url):
    """Registers and logs in the benchmark user and takes push-dispatch's store:write token:
    (user id, the user's access token, the writer's access token)."""
    user_id = rpc(auth_url, "auth.register", {"username": USERNAME, "password": PASSWORD})["userId"]
    login = rpc(auth_url, "auth.login", {"username": USERNAME, "password": PASSWORD})
    if login.get("expiresIn", 0) < ACCESS_TOKEN_TTL:
        raise BenchError(f"access token lives {login.get('expiresIn')} s, expected {ACCESS_TOKEN_TTL}")
    writer = rpc(auth_url, "auth.clientToken", {"clientId": DISPATCH_CLIENT_ID, "clientSecret": DISPATCH_CLIENT_SECRET})
    if "store:write" not in writer.get("scopes", []):
        raise BenchError(f"dispatch client lacks store:write: {writer.get('scopes')}")
    return user_id, login["accessToken"], writer["accessToken"]


def fetch_target(work, label, url, user_id, access, writer_token, verify=None):
    """store.puts one notification of PAYLOAD_BYTES into the store at `url`, writes the store.get body h2load sends,
    and checks that a sample store.get returns exactly it: {url, body_file, response, id}."""
    payload = ("Your one-time code is 482913. " * 64)[:PAYLOAD_BYTES]
    nid = rpc(url, "store.put", {"recipientId": user_id, "payload": payload}, writer_token, verify)["notificationId"]
    body = json.dumps({"jsonrpc": "2.0", "method": "store.get", "params": {"notificationId": nid}, "id": 1},
                      separators=(",", ":"))
    body_file = os.path.join(work, f"get-{label}.json")
    with open(body_file, "w") as f:
        f.write(body)
    sample = rpc_raw(url, "store.get", {"notificationId": nid}, access, verify)
    reply = json.loads(sample)
    if "result" not in reply or reply["result"].get("notificationId") != nid \
            or reply["result"].get("payload") != payload:
        raise BenchError(f"store.get ({label}) sample is not the stored notification: {sample[:400]!r}")
    return {"url": url + "/rpc", "body_file": body_file, "response": sample, "id": nid}


def start_node_peers(ctx, auth_url, user_id, targets, port_clear, port_tls, access, cert, key, cacert):
    """Starts Benchmarks/node_store_peer.mjs in cleartext and over TLS with auth's keys and the two notifications;
    checks each answers a store.get; returns {mode: (process, base url, response length)}, or {} without node."""
    node = shutil.which("node")
    if not node:
        summary("fetch.node skipped: node is not installed (the Node peer needs Node 20's node:http2)")
        return {}
    keys_file = os.path.join(ctx["work"], "node-keys.json")
    records_file = os.path.join(ctx["work"], "node-records.json")
    with open(keys_file, "w") as f:
        json.dump(rpc(auth_url, "auth.keys", {}), f)
    with open(records_file, "w") as f:
        json.dump({t["id"]: {"recipientId": user_id, "result": json.loads(t["response"])["result"]}
                   for t in targets.values()}, f)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node_store_peer.mjs")
    peers = {}
    for mode, port, tls in (("cleartext", port_clear, False), ("tls", port_tls, True)):
        argv = [node, script, "--port", str(port), "--keys", keys_file, "--records", records_file]
        if tls:
            argv += ["--cert", cert, "--key", key]
        proc = start(f"node-{mode}", argv, None, os.path.join(ctx["logs"], f"node-{mode}.log"))
        url = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
        deadline = time.monotonic() + HEALTH_TIMEOUT
        while True:
            if proc.poll() is not None:
                raise BenchError(f"node peer ({mode}) exited with {proc.returncode}; see {ctx['logs']}")
            body = json.dumps({"jsonrpc": "2.0", "method": "store.get",
                               "params": {"notificationId": targets[mode]["id"]}, "id": 1})
            res = run(curl_base(url, cacert if tls else None)
                      + ["--max-time", "2", "-H", "content-type: application/json", "-H",
                         f"authorization: Bearer {access}", "--data-binary", body, url + "/rpc"],
                      timeout=10, check=False)  # refused until node listens
            sample = res.stdout if res.returncode == 0 else b""
            try:
                reply = json.loads(sample) if sample else {}
            except ValueError:
                reply = {}
            if reply.get("result") == json.loads(targets[mode]["response"])["result"]:
                break
            if time.monotonic() > deadline:
                raise BenchError(f"node peer ({mode}) does not answer store.get: {sample[:300]!r}")
            time.sleep(0.2)
        peers[mode] = (proc, url, len(sample))
    return peers


def bench_fetch(ctx, prof):
    work, certs = ctx["work"], ctx["certs"]
    cacert = os.path.join(certs, "ca.pem")
    cert = os.path.join(certs, "notification-store.pem")
    key = os.path.join(certs, "notification-store-key.pem")
    auth_port, clear_port, tls_port, dispatch_port, ng_clear, ng_tls, hd_clear, hd_tls, nd_clear, nd_tls = \
        free_ports(10)

    auth, auth_url, _ = start_auth(ctx, "auth", auth_port, 10)

    store_clear, clear_url = start_store(ctx, "store-cleartext", clear_port, auth_url)
    store_tls, tls_url = start_store(ctx, "store-tls", tls_port, auth_url, tls=True)
    wait_healthy("store-cleartext", clear_url, store_clear)
    wait_healthy("store-tls", tls_url, store_tls, cacert)

    dispatch_data = os.path.join(work, "dispatch")
    os.makedirs(dispatch_data, exist_ok=True)
    dispatch = start("dispatch", [os.path.join(ctx["bin"], "dispatch-service")],
                     service_env(work, SECUREPUSH_DATA_DIR=dispatch_data, SECUREPUSH_DISPATCH_PORT=dispatch_port,
                                 SECUREPUSH_AUTH_URL=auth_url, SECUREPUSH_STORE_URL=clear_url,
                                 SECUREPUSH_DISPATCH_CLIENT_ID=DISPATCH_CLIENT_ID,
                                 SECUREPUSH_DISPATCH_CLIENT_SECRET=DISPATCH_CLIENT_SECRET),
                     os.path.join(ctx["logs"], "dispatch.log"))
    wait_healthy("dispatch", f"http://127.0.0.1:{dispatch_port}", dispatch)

    services = {"auth": auth, "store-cleartext": store_clear, "store-tls": store_tls, "dispatch": dispatch}
    started = {name: rss_kb(p.pid) for name, p in services.items()}
    # Idle is once start-up is over: each service gives its start-up's pages back 5 s after its application is built
    # (MappedFilePages.startUpSettling); the last one started was healthy just now.
    time.sleep(IDLE_SETTLE_S)
    idle = {name: rss_kb(p.pid) for name, p in services.items()}
    idle_detail = {name: rss_detail_mb(p.pid) for name, p in services.items()}

    # a user, a token, one notification in each store
    user_id, access, writer_token = fetch_user(auth_url)
    targets = {label: fetch_target(work, label, url, user_id, access, writer_token, verify)
               for label, url, verify in (("cleartext", clear_url, None), ("tls", tls_url, cacert))}
    response = targets["cleartext"]["response"]
    response_len = len(response)
    if len(targets["tls"]["response"]) != response_len:
        raise BenchError("cleartext and TLS store.get responses differ in size")

    # the ceiling: a private nginx answering POST /rpc with the same bytes
    prefix = os.path.join(work, "nginx")
    conf = nginx_conf(prefix, response, ng_clear, tls_port=ng_tls, cert=cert, key=key)
    run(["nginx", "-t", "-p", prefix, "-c", conf, "-e", os.path.join(prefix, "error.log")], timeout=30)
    nginx = start("nginx", ["nginx", "-p", prefix, "-c", conf, "-e", os.path.join(prefix, "error.log")], None,
                  os.path.join(ctx["logs"], "nginx.log"))
    # nghttp2's own server (one thread) serving the same bytes as a static file: the library's ceiling
    docroot = os.path.join(work, "nghttpd-root")
    os.makedirs(docroot, exist_ok=True)
    with open(os.path.join(docroot, "rpc"), "wb") as f:
        f.write(response)
    nghttpd_clear = start("nghttpd", ["nghttpd", "--no-tls", "-d", docroot, "-a", "127.0.0.1", str(hd_clear)], None,
                          os.path.join(ctx["logs"], "nghttpd.log"))
    nghttpd_tls = start("nghttpd-tls", ["nghttpd", "-d", docroot, "-a", "127.0.0.1", str(hd_tls), key, cert], None,
                        os.path.join(ctx["logs"], "nghttpd-tls.log"))
    for label, proc, url, verify in (("nginx-cleartext", nginx, f"http://127.0.0.1:{ng_clear}", None),
                                     ("nginx-tls", nginx, f"https://127.0.0.1:{ng_tls}", cacert),
                                     ("nghttpd-cleartext", nghttpd_clear, f"http://127.0.0.1:{hd_clear}", None),
                                     ("nghttpd-tls", nghttpd_tls, f"https://127.0.0.1:{hd_tls}", cacert)):
        deadline = time.monotonic() + HEALTH_TIMEOUT
        while True:
            if proc.poll() is not None:
                raise BenchError(f"{label} exited with {proc.returncode}; see {ctx['logs']} and {prefix}/error.log")
            res = run(curl_base(url, verify) + ["--max-time", "2", "-H", "content-type: application/json",
                                               "--data-binary", "{}", url + "/rpc"], timeout=10, check=False)
            if res.returncode == 0 and res.stdout == response:
                break
            if time.monotonic() > deadline:
                raise BenchError(f"{label} did not serve the static body: {res.stdout[:200]!r} {res.stderr[:200]!r}")
            time.sleep(0.2)

    # the peer: the same store.get as a plain Node service (Benchmarks/node_store_peer.mjs), when node is installed
    node_peers = start_node_peers(ctx, auth_url, user_id, targets, nd_clear, nd_tls, access, cert, key, cacert)
    expected_len = {f"node.{mode}": length for mode, (_, _, length) in node_peers.items()}

    nginx_pids = [nginx.pid] + _child_pids(nginx.pid)  # master and workers
    runs = [("store", "cleartext", targets["cleartext"]["url"], targets["cleartext"]["body_file"], [store_clear.pid]),
            ("nginx", "cleartext", f"http://127.0.0.1:{ng_clear}/rpc", targets["cleartext"]["body_file"], nginx_pids),
            ("nghttpd", "cleartext", f"http://127.0.0.1:{hd_clear}/rpc", targets["cleartext"]["body_file"],
             [nghttpd_clear.pid]),
            ("store", "tls", targets["tls"]["url"], targets["tls"]["body_file"], [store_tls.pid]),
            ("nginx", "tls", f"https://127.0.0.1:{ng_tls}/rpc", targets["tls"]["body_file"], nginx_pids),
            ("nghttpd", "tls", f"https://127.0.0.1:{hd_tls}/rpc", targets["tls"]["body_file"], [nghttpd_tls.pid])]
    for mode, (proc, url, _) in node_peers.items():
        # right after ours and nginx in each round, so a ratio compares runs made under the same load
        at = max(i for i, run_ in enumerate(runs) if run_[1] == mode) + 1
        runs.insert(at, ("node", mode, url + "/rpc", targets[mode]["body_file"], [proc.pid]))
    headers = ["content-type: application/json", f"authorization: Bearer {access}"]
    n, warm = prof["fetch_requests"], prof["fetch_warmup"]
    results = {f"{server}.{mode}": [] for server, mode, _, _, _ in runs}
    rss_rounds = []
    for rnd in range(1, prof["rounds"] + 1):
        for server, mode, url, body_file, pids in runs:
            label = f"{server}.{mode}"
            length = expected_len.get(label, response_len)
            if warm:
                w = h2load(url, warm, CLIENTS, STREAMS, body_file, headers)
                check_h2load(f"{label} warm-up (round {rnd})", w, warm, length)
            log_file = os.path.join(work, f"h2load-{server}-{mode}-{rnd}.log")
            cpu0, h2cpu0, faults0 = cpu_seconds(pids), children_cpu_seconds(), minor_faults(pids)
            r = h2load(url, n, CLIENTS, STREAMS, body_file, headers, log_file)
            cpu1, h2cpu1, faults1 = cpu_seconds(pids), children_cpu_seconds(), minor_faults(pids)
            check_h2load(f"{label} (round {rnd})", r, n, length)
            r["server_minor_faults"] = faults1 - faults0
            r["server_cpu_us_per_request"] = round((cpu1 - cpu0) / n * 1e6, 1)
            r["h2load_cpu_us_per_request"] = round((h2cpu1 - h2cpu0) / n * 1e6, 1)
            r["latency"] = percentiles(log_file)
            r["round"] = rnd
            results[label].append(r)
            print(f"  round {rnd} {label:16} {r['rps']:>10.0f} req/s  p50 {r['latency']['p50_ms']:.2f} ms  "
                  f"p99 {r['latency']['p99_ms']:.2f} ms  server CPU {r['server_cpu_us_per_request']:.0f} us/req  "
                  f"h2load CPU {r['h2load_cpu_us_per_request']:.0f} us/req  faults {r['server_minor_faults']}",
                  flush=True)
        rss_rounds.append({name: rss_kb(p.pid) for name, p in services.items()})
        print(f"  round {rnd} RSS MB: " + ", ".join(f"{k} {mb(v)}" for k, v in rss_rounds[-1].items()), flush=True)

    # make sure the services are still fine and the token still works
    for label, url, verify in (("cleartext", clear_url, None), ("tls", tls_url, cacert)):
        rpc(url, "store.get", {"notificationId": targets[label]["id"]}, access, verify)

    figures = {}
    for mode in ("cleartext", "tls"):
        store_runs, nginx_runs = results[f"store.{mode}"], results[f"nginx.{mode}"]
        nghttpd_runs = results[f"nghttpd.{mode}"]
        ratios = [s["rps"] / g["rps"] for s, g in zip(store_runs, nginx_runs)]
        fig = {
            "store_rps": round(statistics.median(r["rps"] for r in store_runs), 1),
            "nginx_rps": round(statistics.median(r["rps"] for r in nginx_runs), 1),
            "nghttpd_rps": round(statistics.median(r["rps"] for r in nghttpd_runs), 1),
            "ratio_to_nginx": round(statistics.median(ratios), 3),
            "ratio_to_nghttpd": round(statistics.median(s["rps"] / h["rps"] for s, h in zip(store_runs, nghttpd_runs)),
                                      3),
            "nghttpd_p99_ms": round(statistics.median(r["latency"]["p99_ms"] for r in nghttpd_runs), 3),
            "nghttpd_cpu_us_per_request": statistics.median(r["server_cpu_us_per_request"] for r in nghttpd_runs),
            "store_p50_ms": round(statistics.median(r["latency"]["p50_ms"] for r in store_runs), 3),
            "store_p90_ms": round(statistics.median(r["latency"]["p90_ms"] for r in store_runs), 3),
            "store_p99_ms": round(statistics.median(r["latency"]["p99_ms"] for r in store_runs), 3),
            "store_max_ms": max(r["latency"]["max_ms"] for r in store_runs),
            "nginx_p50_ms": round(statistics.median(r["latency"]["p50_ms"] for r in nginx_runs), 3),
            "nginx_p90_ms": round(statistics.median(r["latency"]["p90_ms"] for r in nginx_runs), 3),
            "nginx_p99_ms": round(statistics.median(r["latency"]["p99_ms"] for r in nginx_runs), 3),
            "store_cpu_us_per_request": statistics.median(r["server_cpu_us_per_request"] for r in store_runs),
            # every measured run's (the warm-up's are not counted): pages the fetch maps again after start-up gave
            # them back, and heap pages, cost a minor fault each, once
            "store_minor_faults_per_round": [r["server_minor_faults"] for r in store_runs],
            "nginx_cpu_us_per_request": statistics.median(r["server_cpu_us_per_request"] for r in nginx_runs),
            "per_round": {"store_rps": [r["rps"] for r in store_runs], "nginx_rps": [r["rps"] for r in nginx_runs],
                          "nghttpd_rps": [r["rps"] for r in nghttpd_runs], "ratio": [round(x, 3) for x in ratios],
                          "store_p99_ms": [r["latency"]["p99_ms"] for r in store_runs]},
        }
        node_runs = results.get(f"node.{mode}", [])
        if node_runs:
            fig["node_rps"] = round(statistics.median(r["rps"] for r in node_runs), 1)
            fig["ratio_to_node"] = round(statistics.median(s["rps"] / d["rps"] for s, d in zip(store_runs, node_runs)),
                                         3)
            fig["node_p99_ms"] = round(statistics.median(r["latency"]["p99_ms"] for r in node_runs), 3)
            fig["node_cpu_us_per_request"] = statistics.median(r["server_cpu_us_per_request"] for r in node_runs)
            fig["per_round"]["node_rps"] = [r["rps"] for r in node_runs]
        fig["target_ratio_met"] = fig["ratio_to_nginx"] >= TARGET_RATIO
        fig["target_p99_met"] = fig["store_p99_ms"] < TARGET_P99_MS
        fig["target_cpu_met"] = fig["store_cpu_us_per_request"] <= TARGET_FETCH_CPU_US
        if "ratio_to_node" in fig:
            fig["target_node_ratio_met"] = fig["ratio_to_node"] >= TARGET_NODE_RATIO
        figures[mode] = fig

    settings = {
        "profile": ctx["profile"], "rounds": prof["rounds"], "h2load": f"-c {CLIENTS} -m {STREAMS} -n {n}",
        "warmup_requests_per_run": warm, "h2load_threads": 1,
        "request_body_bytes": os.path.getsize(targets["cleartext"]["body_file"]),
        "response_body_bytes": response_len, "payload_bytes": PAYLOAD_BYTES,
        "nginx_worker_processes": NGINX_WORKERS, "nginx": "return 200 '<same bytes>' on POST /rpc",
        "nghttpd": "nghttpd -d DIR (nghttp2's own server, one thread; the same bytes as a static file; TLS with the "
                   "store's certificate): the HTTP/2 library's own ceiling",
        "store_tls": "TLS 1.2/1.3 via swift-nio-ssl, ALPN h2, development CA", "auth_mode": "cleartext",
        "node": "Benchmarks/node_store_peer.mjs on " + (ctx["tools"].get("node") or "(node not installed: skipped)")
                + ": store.get as a plain node:http2 service (one process), ES256 verified once per token, the "
                  "notification in memory; TLS with the store's certificate",
        "statistic": "median over rounds (ratio: median of per-round ratios, each round store and nginx back to back)",
        "order_per_round": [f"{s}.{m}" for s, m, _, _, _ in runs],
        "cpu_per_request": "server user+system CPU (all threads; nginx: master+workers) from /proc/<pid>/stat "
                           "over the measured h2load run / requests: less sensitive to other load than req/s", "tools": ctx["tools"],
        "targets": {"ratio_to_nginx_min": TARGET_RATIO, "p99_ms_max": TARGET_P99_MS,
                    "cpu_us_per_request_max": TARGET_FETCH_CPU_US, "ratio_to_node_min": TARGET_NODE_RATIO},
    }
    write_result(ctx["out"], "fetch", settings, figures, {"runs": results})
    for mode in ("cleartext", "tls"):
        f = figures[mode]
        summary(f"fetch.{mode}.rps {f['store_rps']:.0f} ({f['ratio_to_nginx']:.2f} x nginx) "
                f"[target >= {TARGET_RATIO} x nginx: {met(f['target_ratio_met'])}]")
        summary(f"fetch.{mode}.p50_ms {f['store_p50_ms']:.2f}")
        summary(f"fetch.{mode}.p99_ms {f['store_p99_ms']:.2f} [target < {TARGET_P99_MS:.0f} ms: "
                f"{met(f['target_p99_met'])}]")
        summary(f"fetch.{mode}.minor_faults_per_round {' '.join(str(x) for x in f['store_minor_faults_per_round'])} "
                f"(store, {n} store.get each)")
        summary(f"fetch.{mode}.nginx.rps {f['nginx_rps']:.0f}")
        summary(f"fetch.{mode}.nginx.p50_ms {f['nginx_p50_ms']:.2f}")
        summary(f"fetch.{mode}.nginx.p99_ms {f['nginx_p99_ms']:.2f}")
        summary(f"fetch.{mode}.nghttpd.rps {f['nghttpd_rps']:.0f} (store at {f['ratio_to_nghttpd']:.2f} x nghttpd; "
                f"nghttpd p99 {f['nghttpd_p99_ms']:.2f} ms, {f['nghttpd_cpu_us_per_request']:.1f} us CPU/req)")
        summary(f"fetch.{mode}.cpu_us_per_request {f['store_cpu_us_per_request']:.1f} "
                f"(nginx {f['nginx_cpu_us_per_request']:.0f}) [target <= {TARGET_FETCH_CPU_US:.0f} us: "
                f"{met(f['target_cpu_met'])}]")
        if "node_rps" in f:
            summary(f"fetch.{mode}.node.rps {f['node_rps']:.0f} (store at {f['ratio_to_node']:.2f} x the Node peer; "
                    f"Node p99 {f['node_p99_ms']:.2f} ms, {f['node_cpu_us_per_request']:.0f} us CPU/req) "
                    f"[target >= {TARGET_NODE_RATIO} x Node: {met(f['target_node_ratio_met'])}]")

    # benchmark 5: memory (idle, after benchmark 1, growth across its rounds)
    after = rss_rounds[-1]
    mem = {"started_mb": {k: mb(v) for k, v in started.items()},
           "idle_mb": {k: mb(v) for k, v in idle.items()},
           "after_fetch_mb": {k: mb(v) for k, v in after.items()},
           "after_each_round_mb": [{k: mb(v) for k, v in r.items()} for r in rss_rounds],
           "idle_detail_mb": idle_detail,
           "after_fetch_detail_mb": {name: rss_detail_mb(p.pid) for name, p in services.items()}}
    mem["target_idle_met"] = {k: v < TARGET_IDLE_MB for k, v in mem["idle_mb"].items()}
    if len(rss_rounds) > 1:
        growth = {k: mb(rss_rounds[-1][k] - rss_rounds[0][k]) for k in ("store-cleartext", "store-tls")}
        mem["growth_round1_to_last_mb"] = growth
        mem["target_no_growth_met"] = {k: v <= LEAK_TOLERANCE_MB for k, v in growth.items()}
    mem_settings = {"source": "VmRSS from /proc/<pid>/status (detail: RssAnon = heap and stacks, RssFile = pages of "
                              "the mapped executable and libraries, VmHWM = peak)",
                    "started": "right after start and GET /health ok (dispatch has no devices; auth has the dispatch "
                               "client)",
                    "idle": f"{IDLE_SETTLE_S} s after the last service was healthy: start-up is over and its pages "
                            "given back (MappedFilePages.startUpSettling, 5 s)",
                    "after_fetch": f"after the last round of the fetch benchmark ({prof['rounds']} round(s) of "
                                   f"{'warm-up + ' if warm else ''}{n} store.get per mode)",
                    "leak_tolerance_mb": LEAK_TOLERANCE_MB, "targets": {"idle_mb_max": TARGET_IDLE_MB},
                    "profile": ctx["profile"]}
    write_result(ctx["out"], "memory", mem_settings, mem)
    for k, v in mem["idle_mb"].items():
        d = idle_detail[k]
        summary(f"memory.idle.{k}.mb {v} (anon {d.get('RssAnon')}, file {d.get('RssFile')}; "
                f"{mem['started_mb'][k]} right after start) [target < {TARGET_IDLE_MB:.0f} MB: "
                f"{met(v < TARGET_IDLE_MB)}]")
    for k, v in mem["after_fetch_mb"].items():
        summary(f"memory.after_fetch.{k}.mb {v}")
    if len(rss_rounds) > 1:
        for k in ("store-cleartext", "store-tls"):
            series = " -> ".join(str(r[k]) for r in mem["after_each_round_mb"])
            summary(f"memory.leak_check.{k}.growth_mb {mem['growth_round1_to_last_mb'][k]} ({series}) "
                    f"[target no growth (<= {LEAK_TOLERANCE_MB} MB): {met(mem['target_no_growth_met'][k])}]")

    for proc in (nghttpd_tls, nghttpd_clear, nginx, dispatch, store_tls, store_clear, auth):
        stop(proc)


# ---------------------------------------------------------------------------------------------------------------
# benchmark 1b: the cost of metrics on the fetch path (SECUREPUSH_METRICS on vs off)

def scrape_metrics(base_url):
    """(HTTP status, body) of GET /metrics."""
    res = run(curl_base(base_url) + ["-w", "\n%{http_code}", base_url + "/metrics"], timeout=30)
    body, _, status = res.stdout.decode(errors="replace").rpartition("\n")
    return int(status), body


def sample_value(exposition, name, labels):
    """The value of the sample `name{labels…}` in a Prometheus text exposition (labels: a subset that must match)."""
    for line in exposition.splitlines():
        if line.startswith(name + "{") and all(f'{k}="{v}"' in line for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return None


def bench_fetch_metrics(ctx, prof):
    """Two cleartext store-services side by side, one with metrics on (the default), one with SECUREPUSH_METRICS=off,
    driven by the same h2load command in alternating order, round after round, so the shared machine's noise shows in
    the spread rather than in the difference."""
    work = ctx["work"]
    auth_port, on_port, off_port = free_ports(3)
    auth, auth_url, _ = start_auth(ctx, "auth-metrics", auth_port, 10)
    stores = {"on": start_store(ctx, "store-metrics-on", on_port, auth_url, SECUREPUSH_METRICS="on"),
              "off": start_store(ctx, "store-metrics-off", off_port, auth_url, SECUREPUSH_METRICS="off")}
    n, warm, rounds = prof["fetch_requests"], prof["fetch_warmup"], prof["metrics_rounds"]
    results = {"on": [], "off": []}
    try:
        for mode, (proc, url) in stores.items():
            wait_healthy(f"store-metrics-{mode}", url, proc)
        user_id, access, writer_token = fetch_user(auth_url)
        targets = {mode: fetch_target(work, f"metrics-{mode}", url, user_id, access, writer_token)
                   for mode, (_, url) in stores.items()}
        response_len = len(targets["on"]["response"])
        if len(targets["off"]["response"]) != response_len:
            raise BenchError("store.get responses of the two stores differ in size")
        status_on, _ = scrape_metrics(stores["on"][1])
        status_off, body_off = scrape_metrics(stores["off"][1])
        if status_on != 200 or status_off != 404:
            raise BenchError(f"GET /metrics: {status_on} with metrics on (expected 200), {status_off} with "
                             f"SECUREPUSH_METRICS=off (expected 404): {body_off[:200]!r}")

        headers = ["content-type: application/json", f"authorization: Bearer {access}"]
        for rnd in range(1, rounds + 1):
            for mode in (("on", "off") if rnd % 2 else ("off", "on")):
                proc, _ = stores[mode]
                target = targets[mode]
                if warm:
                    w = h2load(target["url"], warm, CLIENTS, STREAMS, target["body_file"], headers)
                    check_h2load(f"metrics {mode} warm-up (round {rnd})", w, warm, response_len)
                log_file = os.path.join(work, f"h2load-metrics-{mode}-{rnd}.log")
                cpu0 = cpu_seconds([proc.pid])
                r = h2load(target["url"], n, CLIENTS, STREAMS, target["body_file"], headers, log_file)
                cpu1 = cpu_seconds([proc.pid])
                check_h2load(f"metrics {mode} (round {rnd})", r, n, response_len)
                r["server_cpu_us_per_request"] = round((cpu1 - cpu0) / n * 1e6, 1)
                r["latency"] = percentiles(log_file)
                r["round"] = rnd
                results[mode].append(r)
                print(f"  round {rnd} metrics {mode:3} {r['rps']:>10.0f} req/s  p50 {r['latency']['p50_ms']:.2f} ms  "
                      f"p99 {r['latency']['p99_ms']:.2f} ms  server CPU {r['server_cpu_us_per_request']:.1f} us/req",
                      flush=True)

        # the store with metrics on really counted every call it served (sample + warm-ups + measured runs)
        _, exposition = scrape_metrics(stores["on"][1])
        counted = sample_value(exposition, "securepush_rpc_requests_total",
                               {"method": "store.get", "code": "ok"}) or 0
        expected = 1 + rounds * (n + warm)
        if counted < expected:
            raise BenchError(f"the store with metrics on counted {counted:.0f} store.get calls, expected {expected}")
    finally:
        for proc, _ in stores.values():
            stop(proc)
        stop(auth)

    def median(mode, key):
        return statistics.median(r[key] for r in results[mode])

    rps_ratios = [on["rps"] / off["rps"] for on, off in zip(results["on"], results["off"])]
    cpu_ratios = [on["server_cpu_us_per_request"] / off["server_cpu_us_per_request"]
                  for on, off in zip(results["on"], results["off"])]
    figures = {mode: {"store_rps": round(median(mode, "rps"), 1),
                      "cpu_us_per_request": median(mode, "server_cpu_us_per_request"),
                      "p50_ms": round(statistics.median(r["latency"]["p50_ms"] for r in results[mode]), 3),
                      "p99_ms": round(statistics.median(r["latency"]["p99_ms"] for r in results[mode]), 3),
                      "per_round_rps": [r["rps"] for r in results[mode]],
                      "per_round_cpu_us_per_request": [r["server_cpu_us_per_request"] for r in results[mode]]}
               for mode in ("on", "off")}
    figures["rps_cost_pct"] = round((1 - statistics.median(rps_ratios)) * 100, 2)
    figures["cpu_cost_pct"] = round((statistics.median(cpu_ratios) - 1) * 100, 2)
    figures["per_round_rps_cost_pct"] = [round((1 - x) * 100, 2) for x in rps_ratios]
    figures["per_round_cpu_cost_pct"] = [round((x - 1) * 100, 2) for x in cpu_ratios]
    figures["store_get_counted_with_metrics_on"] = counted
    figures["target_met"] = figures["cpu_cost_pct"] < TARGET_METRICS_COST_PCT
    settings = {
        "profile": ctx["profile"], "rounds": rounds, "h2load": f"-c {CLIENTS} -m {STREAMS} -n {n}",
        "warmup_requests_per_run": warm, "payload_bytes": PAYLOAD_BYTES,
        "stores": "two cleartext store-services on SQLite, side by side: SECUREPUSH_METRICS=on and =off",
        "order": "on, off in odd rounds; off, on in even rounds",
        "statistic": "median over rounds; cost: median of the per-round ratios (on over off), each round's pair run "
                     "back to back",
        "targets": {"cpu_cost_pct_max": TARGET_METRICS_COST_PCT},
    }
    write_result(ctx["out"], "fetch-metrics", settings, figures, {"runs": results})
    for mode in ("on", "off"):
        f = figures[mode]
        summary(f"fetch_metrics.{mode}.rps {f['store_rps']:.0f} (cpu {f['cpu_us_per_request']:.1f} us/request, "
                f"p50 {f['p50_ms']:.2f} ms, p99 {f['p99_ms']:.2f} ms)")
    summary(f"fetch_metrics.cost_pct cpu {figures['cpu_cost_pct']:+.1f}% rps {figures['rps_cost_pct']:+.1f}% "
            f"(per round cpu {figures['per_round_cpu_cost_pct']}, rps {figures['per_round_rps_cost_pct']}) "
            f"[target cpu cost < {TARGET_METRICS_COST_PCT:.0f}%: {met(figures['target_met'])}]")


# ---------------------------------------------------------------------------------------------------------------
# benchmark 4: sign-in

def refresh_driver(host, port, login_body, chains, count, timeout, cpu_probe):
    """auth.refresh load: `chains` token families (one login each), then `count` refreshes over one HTTP/2
    connection, `chains` in flight; each chain presents the token its previous refresh returned.
    Returns (seconds, latencies in seconds, server CPU seconds of the refresh phase via cpu_probe())."""

    async def go():
        conn = H2Connection(host, port)
        await conn.connect()
        try:
            async def login():
                status, body = await conn.post("/rpc", login_body)
                reply = json.loads(body)
                if status != 200 or "result" not in reply:
                    raise BenchError(f"login for a refresh token failed: {status} {body[:300]!r}")
                return reply["result"]["refreshToken"]

            tokens = await asyncio.gather(*(login() for _ in range(chains)))
            remaining = [count]
            latencies = []

            async def chain(token):
                while remaining[0] > 0:
                    remaining[0] -= 1
                    body = json.dumps({"jsonrpc": "2.0", "method": "auth.refresh",
                                       "params": {"refreshToken": token}, "id": 1}, separators=(",", ":")).encode()
                    t0 = time.perf_counter()
                    status, raw = await conn.post("/rpc", body)
                    latencies.append(time.perf_counter() - t0)
                    reply = json.loads(raw)
                    if status != 200 or "result" not in reply:
                        raise BenchError(f"auth.refresh failed: {status} {raw[:300]!r}")
                    token = reply["result"]["refreshToken"]

            cpu0, t0 = cpu_probe(), time.perf_counter()
            await asyncio.gather(*(chain(t) for t in tokens))
            return time.perf_counter() - t0, latencies, cpu_probe() - cpu0
        finally:
            await conn.close()

    async def bounded():
        return await asyncio.wait_for(go(), timeout)

    try:
        return asyncio.run(bounded())
    except asyncio.TimeoutError as exc:
        raise BenchError(f"auth.refresh driver timed out after {timeout} s") from exc
    except H2Error as exc:
        raise BenchError(f"auth.refresh driver: {exc}") from exc


def bench_signin(ctx, prof):
    figures, per_cost = {}, {}
    hsm = softhsm_signing_key(ctx)
    # (bcrypt cost, where the token signing key is): the generated key in memory at both costs, then the key in
    # SoftHSM2 at cost 10 (issue 32), where a signature is a PKCS#11 call into the module.
    variants = [(12, "memory"), (10, "memory")] + ([(10, "softhsm")] if hsm else [])
    if not hsm:
        summary("signin.softhsm skipped: softhsm2 is not installed (Debian softhsm2)")
    for cost, key in variants:
        (port,) = free_ports(1)
        name = f"auth-cost{cost}" + ("-softhsm" if key == "softhsm" else "")
        # figures of the module's run carry `_hsm` after the cost (login_cost10_hsm_per_s, refresh_hsm_per_s)
        tag = "_hsm" if key == "softhsm" else ""
        auth, url, data = start_auth(ctx, name, port, cost, hsm if key == "softhsm" else None)
        rpc(url, "auth.register", {"username": USERNAME, "password": PASSWORD})
        stored_cost = password_hash_cost(data, USERNAME)
        if stored_cost != cost:
            raise BenchError(f"{name}: the stored hash has cost {stored_cost}, expected {cost}")
        body = json.dumps({"jsonrpc": "2.0", "method": "auth.login",
                           "params": {"username": USERNAME, "password": PASSWORD}, "id": 1}, separators=(",", ":"))
        body_file = os.path.join(ctx["work"], f"login-{cost}.json")
        with open(body_file, "w") as f:
            f.write(body)
        sample = rpc_raw(url, "auth.login", {"username": USERNAME, "password": PASSWORD})
        if "result" not in json.loads(sample):
            raise BenchError(f"{name}: login sample failed: {sample[:300]!r}")
        n = prof["login_requests"][cost]
        log_file = os.path.join(ctx["work"], f"h2load-login-{cost}{tag}.log")
        cpu0 = cpu_seconds([auth.pid])
        r = h2load(url + "/rpc", n, LOGIN_CLIENTS, LOGIN_STREAMS, body_file, ["content-type: application/json"],
                   log_file)
        r["server_cpu_ms_per_request"] = round((cpu_seconds([auth.pid]) - cpu0) / n * 1000, 1)
        # token lengths are fixed, so n successes add up to n x the sample's size (2% slack for safety)
        check_h2load(f"auth.login cost {cost}", r, n, len(sample), tolerance=0.02)
        r["latency"] = percentiles(log_file)
        per_cost[f"{cost}{tag}"] = r
        figures[f"login_cost{cost}{tag}_per_s"] = round(r["rps"], 2)
        figures[f"login_cost{cost}{tag}_p50_ms"] = r["latency"]["p50_ms"]
        figures[f"login_cost{cost}{tag}_p99_ms"] = r["latency"]["p99_ms"]
        figures[f"login_cost{cost}{tag}_cpu_ms_per_login"] = r["server_cpu_ms_per_request"]
        summary(f"signin.login.cost{cost}{tag.replace('_', '.')}.per_s {r['rps']:.1f} (bcrypt cost {stored_cost}, "
                f"signing key {key}, "
                f"p50 {r['latency']['p50_ms']:.0f} ms, p99 {r['latency']['p99_ms']:.0f} ms, "
                f"auth CPU {r['server_cpu_ms_per_request']:.0f} ms/login)")

        if cost == 10:
            # auth.refresh: tokens rotate on use and reuse revokes the family, so every request needs the token
            # the previous refresh of its family returned: a small asyncio HTTP/2 driver (h2c.py) runs
            # REFRESH_CHAINS families in parallel over one connection.
            count = prof["refresh_requests"]
            seconds, lat, cpu = refresh_driver("127.0.0.1", port, body.encode(), REFRESH_CHAINS, count, CMD_TIMEOUT,
                                               lambda: cpu_seconds([auth.pid]))
            figures[f"refresh{tag}_cpu_us_per_request"] = round(cpu / count * 1e6, 1)
            lat.sort()
            pct = lambda p: round(lat[max(0, min(len(lat) - 1, int(round(p / 100.0 * len(lat) + 0.5)) - 1))] * 1000, 2)
            figures[f"refresh{tag}_per_s"] = round(count / seconds, 1)
            figures[f"refresh{tag}_p50_ms"] = pct(50)
            figures[f"refresh{tag}_p99_ms"] = pct(99)
            figures[f"refresh{tag}_count"] = count
            summary(f"signin.refresh{tag.replace('_', '.')}.per_s {figures[f'refresh{tag}_per_s']:.0f} ({count} "
                    f"refreshes, {REFRESH_CHAINS} in flight, signing key {key}, "
                    f"p50 {figures[f'refresh{tag}_p50_ms']:.1f} ms, p99 {figures[f'refresh{tag}_p99_ms']:.1f} ms, "
                    f"auth CPU {figures[f'refresh{tag}_cpu_us_per_request']:.0f} us/refresh)")
        stop(auth)

    settings = {
        "profile": ctx["profile"],
        "login": {"driver": "h2load, fixed body (same user and password; only failures are throttled)",
                  "h2load": f"-c {LOGIN_CLIENTS} -m {LOGIN_STREAMS}",
                  "requests": {f"cost{c}": prof["login_requests"][c] for c in (12, 10)},
                  "bcrypt_costs": [12, 10], "cost_check": "read from the stored hash prefix after auth.register",
                  "auth_instances": "a fresh auth-service (own data dir) per cost; auth rehashes on cost change",
                  "signing_keys": "generated (in memory) at costs 12 and 10; then, when softhsm2 is installed, "
                                  "an ECDSA P-256 key in a SoftHSM2 token (SECUREPUSH_AUTH_SIGNING_KEY=pkcs11:...) at "
                                  "cost 10: figures with _hsm"},
        "refresh": {"driver": "Benchmarks/h2c.py: asyncio HTTP/2 (h2c prior knowledge) client, one connection",
                    "requests": prof["refresh_requests"], "in_flight": REFRESH_CHAINS,
                    "method": f"{REFRESH_CHAINS} logins (one token family each), then each family refreshes in a "
                              "loop, presenting the token its previous refresh returned, until the count is "
                              "reached; rate = count / wall time of the refresh phase; the Python client shares "
                              "the 2 cores with auth, so this is a lower bound",
                    "auth_bcrypt_cost": 10},
        "tools": ctx["tools"],
    }
    write_result(ctx["out"], "signin", settings, figures, {"login_runs": {f"cost{c}": r for c, r in per_cost.items()}})


# ---------------------------------------------------------------------------------------------------------------
# benchmarks 2 and 3: send path and fan-out (securepush-bench plays backend and device / hosts the APNs mock)

def start_stack(ctx, prefix, dispatch_env=None, start_dispatch=True):
    """auth (bcrypt cost 10, a push:send client), a cleartext store and (unless told not to) a cleartext dispatch."""
    work = ctx["work"]
    auth_port, store_port, dispatch_port = free_ports(3)
    auth, auth_url, auth_data = start_auth(ctx, f"{prefix}-auth", auth_port, 10)
    store_data = os.path.join(work, f"{prefix}-store")
    os.makedirs(store_data, exist_ok=True)
    store = start(f"{prefix}-store", [os.path.join(ctx["bin"], "store-service")],
                  service_env(work, SECUREPUSH_DATA_DIR=store_data, SECUREPUSH_STORE_PORT=store_port,
                              SECUREPUSH_AUTH_URL=auth_url),
                  os.path.join(ctx["logs"], f"{prefix}-store.log"))
    store_url = f"http://127.0.0.1:{store_port}"
    wait_healthy(f"{prefix}-store", store_url, store)
    dispatch_data = os.path.join(work, f"{prefix}-dispatch")
    os.makedirs(dispatch_data, exist_ok=True)
    stack = {"auth": auth, "store": store, "auth_url": auth_url, "store_url": store_url, "auth_data": auth_data,
             "dispatch_url": f"http://127.0.0.1:{dispatch_port}", "dispatch_data": dispatch_data}

    def launch(extra_env=None):
        # The fan-out benchmark gives one user far more devices than the default quota (20) allows.
        env = dict(SECUREPUSH_DATA_DIR=dispatch_data, SECUREPUSH_DISPATCH_PORT=dispatch_port,
                   SECUREPUSH_AUTH_URL=auth_url, SECUREPUSH_STORE_URL=store_url,
                   SECUREPUSH_DISPATCH_CLIENT_ID=DISPATCH_CLIENT_ID,
                   SECUREPUSH_DISPATCH_CLIENT_SECRET=DISPATCH_CLIENT_SECRET,
                   SECUREPUSH_MAX_DEVICES_PER_USER="100000")
        env.update(extra_env or {})
        stack["dispatch"] = start(f"{prefix}-dispatch", [os.path.join(ctx["bin"], "dispatch-service")],
                                  service_env(work, **env), os.path.join(ctx["logs"], f"{prefix}-dispatch.log"))
        return stack["dispatch"]

    stack["launch_dispatch"] = launch
    if start_dispatch:
        wait_healthy(f"{prefix}-dispatch", stack["dispatch_url"], launch(dispatch_env))
    secret_file = os.path.join(work, f"{prefix}-backend-secret")
    with open(secret_file, "w") as f:
        f.write(BACKEND_CLIENT_SECRET)
    stack["bench_args"] = ["--auth", auth_url, "--dispatch", stack["dispatch_url"], "--client-id", BACKEND_CLIENT_ID,
                           "--client-secret-file", secret_file]
    return stack


def stop_stack(stack):
    for name in ("dispatch", "store", "auth"):
        if stack.get(name) is not None:
            stop(stack[name])


def stack_rss_mb(stack):
    """RSS of a stack's services, keyed like memory.json (its store is cleartext)."""
    keys = {"auth": "auth", "store": "store-cleartext", "dispatch": "dispatch"}
    return {key: mb(rss_kb(stack[name].pid)) for name, key in keys.items()}


def bench_tool(ctx):
    return os.path.join(ctx["bin"], "securepush-bench")


def start_bench_tool(ctx, label, argv):
    """Starts securepush-bench; its progress lines (stderr) are read by finish_bench_tool. Its temporary files (the
    APNs mock's certificates) go under the work directory (TMPDIR), which the driver removes however the tool ends:
    stopped with SIGTERM, the tool's own clean-up does not run."""
    tmp = os.path.join(ctx["work"], "tmp")
    os.makedirs(tmp, exist_ok=True)
    proc = subprocess.Popen([bench_tool(ctx)] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, preexec_fn=_pdeathsig, env=dict(os.environ, TMPDIR=tmp))
    _children.append((label, proc))
    return proc


def finish_bench_tool(ctx, label, proc, timeout):
    """Copies securepush-bench's progress lines to the console and its log until it exits; fails on a bad exit."""
    log_path = os.path.join(ctx["logs"], f"{label}.log")
    with open(log_path, "ab") as log:
        deadline = time.monotonic() + timeout
        for line in proc.stderr:
            text = line.decode(errors="replace").rstrip()
            print(f"  {text}", flush=True)
            log.write(line)
            if time.monotonic() > deadline:
                break
        try:
            proc.wait(timeout=max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            stop(proc)
            raise BenchError(f"{label} did not finish within {timeout} s")
    if proc.returncode != 0:
        raise BenchError(f"{label} failed (exit {proc.returncode}); see {log_path}")


def bench_send(ctx, prof):
    stack = start_stack(ctx, "send")
    try:
        result_file = os.path.join(ctx["work"], "send-result.json")
        argv = ["send"] + stack["bench_args"] + [
            "--store", stack["store_url"], "--warmup", str(prof["send_warmup"]),
            "--sustained-sends", str(prof["send_sustained"]), "--concurrency", str(SEND_CONCURRENCY),
            "--rate-seconds", str(prof["send_rate_seconds"]), "--payload-bytes", str(PAYLOAD_BYTES),
            "--out", result_file]
        for rate in SEND_RATES:
            argv += ["--rate", str(rate)]
        names = ("auth", "store", "dispatch")
        split_before = {n: cpu_split_seconds([stack[n].pid]) for n in names}
        label = "securepush-bench-send"
        finish_bench_tool(ctx, label, start_bench_tool(ctx, label, argv), timeout=900)
        split_after = {n: cpu_split_seconds([stack[n].pid]) for n in names}
        kernel_each = {n: split_after[n][1] - split_before[n][1] for n in names}
        cpu_each = {n: sum(split_after[n]) - sum(split_before[n]) for n in names}
        cpu = sum(cpu_each.values())
        memory_after = stack_rss_mb(stack)
    finally:
        stop_stack(stack)
    with open(result_file) as f:
        raw = json.load(f)
    sustained = raw["sustained"]
    figures = {"sustained": sustained}
    figures.update(raw["rates"])
    sustained["target_met"] = sustained["sends_per_second"] >= TARGET_SENDS_PER_S
    top = figures.get(f"rate{max(SEND_RATES)}")
    if top:
        top["target_p99_met"] = top["fetched_ms"]["p99"] < TARGET_SEND_P99_MS
    figures["memory_after_mb"] = memory_after
    total_sends = raw["sustained"]["sends"] + sum(r["sends"] for r in raw["rates"].values()) + prof["send_warmup"]
    figures["services_cpu_us_per_send"] = round(cpu / max(1, total_sends) * 1e6, 1)
    figures["cpu_us_per_send_by_service"] = {n: round(c / max(1, total_sends) * 1e6, 1) for n, c in cpu_each.items()}
    # The kernel's part (system time: socket reads and writes, SQLite's WAL writes, futex and epoll waits): what no
    # change to our own code removes while a send is five RPCs over sockets and its writes go to a file.
    figures["kernel_cpu_us_per_send_by_service"] = {
        n: round(k / max(1, total_sends) * 1e6, 1) for n, k in kernel_each.items()}
    figures["target_cpu_met"] = figures["services_cpu_us_per_send"] <= TARGET_SEND_CPU_US
    settings = {
        "profile": ctx["profile"], "driver": "securepush-bench send (Swift: SecurePushBackend + SecurePushDevice SDK)",
        "topology": "auth (bcrypt 10), notification-store and push-dispatch, cleartext h2c, SQLite, one user with "
                    "one direct-channel device connected to push-dispatch's event stream",
        "warmup_sends": prof["send_warmup"], "sustained_sends": prof["send_sustained"],
        "sustained_concurrency": SEND_CONCURRENCY,
        "sustained_device": "receives and acknowledges every id (no fetch)",
        "rates": list(SEND_RATES), "rate_seconds": prof["send_rate_seconds"],
        "rate_device": "receives, fetches (store.get) and acknowledges every id",
        "latency_origin": "each send's scheduled time (open loop, no coordinated omission)",
        "payload_bytes": PAYLOAD_BYTES,
        "targets": {"sends_per_s_min": TARGET_SENDS_PER_S,
                    "fetched_p99_ms_max": TARGET_SEND_P99_MS, "fetched_p99_at_per_s": max(SEND_RATES),
                    "cpu_us_per_send_max": TARGET_SEND_CPU_US},
    }
    write_result(ctx["out"], "send", settings, figures)
    summary(f"send.sustained.per_s {sustained['sends_per_second']:.0f} ({sustained['sends']} sends, "
            f"{SEND_CONCURRENCY} in flight, push.send p50 {sustained['accepted_ms']['p50']} ms, "
            f"p99 {sustained['accepted_ms']['p99']} ms) [target >= {TARGET_SENDS_PER_S:.0f}/s: "
            f"{met(sustained['target_met'])}]")
    for rate in SEND_RATES:
        r = figures[f"rate{rate}"]
        line = (f"send.rate{rate}.end_to_end_ms p50 {r['fetched_ms']['p50']} p99 {r['fetched_ms']['p99']} "
                f"max {r['fetched_ms']['max']} (received p99 {r['received_ms']['p99']}, accepted p99 "
                f"{r['accepted_ms']['p99']}; achieved {r['achieved_per_second']:.0f}/s)")
        if "target_p99_met" in r:
            line += f" [target p99 < {TARGET_SEND_P99_MS:.0f} ms: {met(r['target_p99_met'])}]"
        summary(line)
    by = figures["cpu_us_per_send_by_service"]
    summary(f"send.cpu_us_per_send {figures['services_cpu_us_per_send']:.0f} (auth {by['auth']:.0f} + store "
            f"{by['store']:.0f} + dispatch {by['dispatch']:.0f}; whole run, device fetches and acks included) "
            f"[target <= {TARGET_SEND_CPU_US:.0f} us: {met(figures['target_cpu_met'])}]")
    kernel = figures["kernel_cpu_us_per_send_by_service"]
    summary(f"send.kernel_cpu_us_per_send {sum(kernel.values()):.0f} (auth {kernel['auth']:.0f} + store "
            f"{kernel['store']:.0f} + dispatch {kernel['dispatch']:.0f}; the system-time part of the figure above)")


# ---------------------------------------------------------------------------------------------------------------
# webhooks (issue 30): events per second to a local receiver, and the send path beside it with and without an endpoint

class WebhookSink:
    """A local webhook receiver: HTTP/1.1 keep-alive on 127.0.0.1, answers 204, records each event's type and arrival
    (no signature check here: the tests do that; this measures throughput)."""

    def __init__(self):
        import http.server
        sink = self
        self.lock = threading.Lock()
        self.arrivals = []  # (monotonic time, type)

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    kind = json.loads(body).get("type")
                except ValueError:
                    kind = None
                with sink.lock:
                    sink.arrivals.append((time.monotonic(), kind))
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def of_type(self, kind):
        with self.lock:
            return [t for t, k in self.arrivals if k == kind]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def bench_webhooks(ctx, prof):
    sink = WebhookSink()
    stack = start_stack(ctx, "webhooks", dispatch_env={"SECUREPUSH_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1"})
    names = ("auth", "store", "dispatch")
    sends = prof["webhook_sends"]
    per_round = sends + prof["send_warmup"]
    phases = {label: {} for label in ("none", "endpoint", "replay")}

    def add(label, key, value):
        phases[label].setdefault(key, []).append(value)

    def cpu_by_service():
        return {n: cpu_seconds([stack[n].pid]) for n in names}

    def spent(before):
        after = cpu_by_service()
        return {n: after[n] - before[n] for n in names}

    def wait_arrivals(after_count, expected, what):
        deadline = time.monotonic() + 120
        while len(sink.of_type("delivery.sent")) < after_count + expected and time.monotonic() < deadline:
            time.sleep(0.02)
        arrivals = sink.of_type("delivery.sent")[after_count:]
        if len(arrivals) < expected:
            raise BenchError(f"webhooks: {len(arrivals)} of {expected} {what} arrived within 120 s")
        return arrivals

    try:
        def sustained(label):
            result_file = os.path.join(ctx["work"], f"webhooks-{label}.json")
            argv = ["send"] + stack["bench_args"] + [
                "--store", stack["store_url"], "--warmup", str(prof["send_warmup"]), "--sustained-sends", str(sends),
                "--concurrency", str(SEND_CONCURRENCY), "--payload-bytes", str(PAYLOAD_BYTES), "--sustained-only",
                "--out", result_file]
            tool = f"securepush-bench-webhooks-{label}"
            finish_bench_tool(ctx, tool, start_bench_tool(ctx, tool, argv), timeout=900)
            with open(result_file) as f:
                return json.load(f)["sustained"]

        token = rpc(stack["auth_url"], "auth.clientToken",
                    {"clientId": BACKEND_CLIENT_ID, "clientSecret": BACKEND_CLIENT_SECRET})["accessToken"]
        for index in range(prof["webhook_rounds"]):
            # 1. No endpoint: what a send costs today.
            before = cpu_by_service()
            raw = sustained(f"none{index}")
            cpu = spent(before)
            add("none", "sends_per_second", round(raw["sends_per_second"], 1))
            add("none", "cpu_us_per_send", round(sum(cpu.values()) / per_round * 1e6, 1))
            add("none", "dispatch_cpu_us_per_send", round(cpu["dispatch"] / per_round * 1e6, 1))
            # 2. One endpoint subscribed to delivery.sent: the same sends, each making an event.
            created = time.time()
            webhook = rpc(stack["dispatch_url"], "webhooks.create",
                          {"url": sink.url, "events": ["delivery.sent"]}, token=token)["webhookId"]
            count = len(sink.of_type("delivery.sent"))
            before = cpu_by_service()
            raw = sustained(f"endpoint{index}")
            ended = time.monotonic()
            arrivals = wait_arrivals(count, per_round, "delivery.sent events")
            cpu = spent(before)
            add("endpoint", "sends_per_second", round(raw["sends_per_second"], 1))
            add("endpoint", "lag_s", round(max(0.0, arrivals[-1] - ended), 2))
            add("endpoint", "cpu_us_per_send", round(sum(cpu.values()) / per_round * 1e6, 1))
            add("endpoint", "dispatch_cpu_us_per_send", round(cpu["dispatch"] / per_round * 1e6, 1))
            # 3. The sender alone: every event of round 2 queued again at once (webhooks.replay), drained.
            count = len(sink.of_type("delivery.sent"))
            before = cpu_by_service()
            started = time.monotonic()
            queued = rpc(stack["dispatch_url"], "webhooks.replay",
                         {"webhookId": webhook, "since": datetime.datetime.fromtimestamp(
                             created - 1, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")},
                         token=token)["events"]
            arrivals = wait_arrivals(count, queued, "replayed events")
            cpu = spent(before)
            add("replay", "events", queued)
            add("replay", "events_per_second", round(queued / max(1e-3, arrivals[-1] - started), 1))
            add("replay", "dispatch_cpu_us_per_event", round(cpu["dispatch"] / queued * 1e6, 1))
            rpc(stack["dispatch_url"], "webhooks.delete", {"webhookId": webhook}, token=token)
    finally:
        stop_stack(stack)
        sink.close()
    figures = {label: {key: {"runs": values, "median": statistics.median(values)} for key, values in phase.items()}
               for label, phase in phases.items()}
    none, endpoint, replay = figures["none"], figures["endpoint"], figures["replay"]
    figures["send_with_endpoint_vs_none"] = round(
        endpoint["sends_per_second"]["median"] / none["sends_per_second"]["median"], 3)
    settings = {
        "profile": ctx["profile"],
        "topology": "auth, notification-store and push-dispatch (SQLite, cleartext h2c), one direct-channel device "
                    "(securepush-bench send, sustained phase only); a Python receiver on 127.0.0.1 (HTTP/1.1 "
                    "keep-alive, answers 204, no signature check) subscribed to delivery.sent",
        "sends_per_round": sends, "warmup_sends": prof["send_warmup"], "concurrency": SEND_CONCURRENCY,
        "rounds": prof["webhook_rounds"],
        "order": "each round: sends with no endpoint; an endpoint created, the same sends; webhooks.replay of that "
                 "round's events, drained; the endpoint deleted",
        "cpu": "services' CPU from /proc over the phase, per send (warm-up included) or per replayed event",
        "lag_s": "the last event's arrival after the send tool ended",
        "replay.events_per_second": "replayed events / time from the webhooks.replay call to the last arrival",
    }
    write_result(ctx["out"], "webhooks", settings, figures)
    summary(f"webhooks.events_per_s {replay['events_per_second']['median']:.0f} (a backlog of "
            f"{replay['events']['median']:.0f} delivery.sent events replayed to a local receiver, median of "
            f"{prof['webhook_rounds']}; push-dispatch {replay['dispatch_cpu_us_per_event']['median']:.0f} us CPU per "
            f"event); while sending, the last event {endpoint['lag_s']['median']} s after the last send")
    summary(f"webhooks.send_per_s no endpoint {none['sends_per_second']['median']:.0f} vs one endpoint "
            f"{endpoint['sends_per_second']['median']:.0f} (x{figures['send_with_endpoint_vs_none']}); services CPU "
            f"{none['cpu_us_per_send']['median']:.0f} vs {endpoint['cpu_us_per_send']['median']:.0f} us per send "
            f"(push-dispatch {none['dispatch_cpu_us_per_send']['median']:.0f} vs "
            f"{endpoint['dispatch_cpu_us_per_send']['median']:.0f})")

def bench_fanout(ctx, prof):
    stack = start_stack(ctx, "fanout", start_dispatch=False)
    mock_file = os.path.join(ctx["work"], "apns-mock.json")
    result_file = os.path.join(ctx["work"], "fanout-result.json")
    pid_file = os.path.join(ctx["work"], "fanout-dispatch.pid")
    argv = ["fanout"] + stack["bench_args"] + [
        "--devices", str(prof["fanout_devices"]), "--users", str(prof["fanout_users"]),
        "--concurrency", str(FANOUT_CONCURRENCY), "--dispatch-data-dir", stack["dispatch_data"],
        "--auth-data-dir", stack["auth_data"], "--recipients-per-call", str(FANOUT_RECIPIENTS_PER_CALL),
        "--dispatch-pid-file", pid_file, "--service-pid", str(stack["auth"].pid),
        "--service-pid", str(stack["store"].pid),
        "--mock-file", mock_file, "--out", result_file]
    tool = start_bench_tool(ctx, "securepush-bench-fanout", argv)
    try:
        # the tool seeds dispatch's database and starts the mock; then push-dispatch starts, pointed at it
        deadline = time.monotonic() + 300
        while not os.path.exists(mock_file):
            if tool.poll() is not None or time.monotonic() > deadline:
                err = tool.stderr.read().decode(errors="replace") if tool.poll() is not None else ""
                raise BenchError(f"securepush-bench fanout did not start its APNs mock: {err[-800:]}")
            time.sleep(0.1)
        with open(mock_file) as f:
            mock = json.load(f)
        apns_env = {"SECUREPUSH_APNS_URL": mock["url"], "SECUREPUSH_APNS_CA_FILE": mock["caFile"],
                    "SECUREPUSH_APNS_KEY_FILE": mock["keyFile"], "SECUREPUSH_APNS_KEY_ID": mock["keyId"],
                    "SECUREPUSH_APNS_TEAM_ID": mock["teamId"], "SECUREPUSH_APNS_TOPIC": mock["topic"]}
        dispatch = stack["launch_dispatch"](apns_env)
        with open(pid_file + ".tmp", "w") as f:
            f.write(str(dispatch.pid))
        os.rename(pid_file + ".tmp", pid_file)
        wait_healthy("fanout-dispatch", stack["dispatch_url"], dispatch)
        cpu_before = cpu_seconds([dispatch.pid])
        finish_bench_tool(ctx, "securepush-bench-fanout", tool, timeout=600)
        dispatch_cpu = cpu_seconds([dispatch.pid]) - cpu_before
        memory_after = stack_rss_mb(stack)
    finally:
        stop(tool)
        stop_stack(stack)
    with open(result_file) as f:
        raw = json.load(f)
    one, many = raw["one_user"], raw["many_users"]
    batch = raw.get("one_call_to_many")
    deliveries = one["deliveries"] + many["sends"] + (batch["recipients"] if batch else 0)
    figures = {"one_user": one, "many_users": many, "one_call_to_many": batch,
               "apns_connections": raw["apns_connections"],
               "dispatch_cpu_us_per_delivery": round(dispatch_cpu / max(1, deliveries) * 1e6, 1),
               "memory_after_mb": memory_after}
    # The one send records a job per device before it returns; how fast the worker then empties the queue:
    after_send = one["drain_seconds"] - one["send_ms"] / 1000
    one["deliveries_per_second_after_send"] = round(one["deliveries"] / after_send, 1) if after_send > 0 else None
    one["target_met"] = one["deliveries_per_second"] >= TARGET_DELIVERIES_PER_S
    many["target_met"] = many["deliveries_per_second"] >= TARGET_DELIVERIES_PER_S
    settings = {
        "profile": ctx["profile"],
        "driver": "securepush-bench fanout: the APNs mock (Tests/APNsMock: HTTP/2 over TLS, checks provider token, "
                  "topic, push type, token format like APNs) runs in the benchmark process",
        "one_user": f"one push.send to a user with {prof['fanout_devices']} APNs devices (registered with "
                    "devices.register)",
        "many_users": f"{prof['fanout_users']} push.send, {FANOUT_CONCURRENCY} in flight, to as many users with one "
                      "APNs device each (seeded into push-dispatch's SQLite through its own repository)",
        "one_call_to_many": f"the same {prof['fanout_users']} users again through push.send with recipientIds, "
                            f"{FANOUT_RECIPIENTS_PER_CALL} per call, one call at a time (issue 29); CPU of auth, "
                            "notification-store and push-dispatch over the scenario, read from /proc",
        "dispatch": "SECUREPUSH_DELIVERY_CONCURRENCY default (64 APNs requests in flight), SQLite",
        "targets": {"deliveries_per_s_min": TARGET_DELIVERIES_PER_S},
    }
    write_result(ctx["out"], "fanout", settings, figures)
    summary(f"fanout.one_user.deliveries_per_s {one['deliveries_per_second']:.0f} ({one['devices']} devices, "
            f"drained in {one['drain_seconds']} s of which push.send {one['send_ms'] / 1000:.3f} s; "
            f"{one['deliveries_per_second_after_send'] or 0:.0f}/s once it returned; "
            f"{raw['apns_connections']} APNs connection(s)) "
            f"[target >= {TARGET_DELIVERIES_PER_S:.0f}/s: {met(one['target_met'])}]")
    summary(f"fanout.many_users.deliveries_per_s {many['deliveries_per_second']:.0f} ({many['users']} users, "
            f"{many['sends_per_second']:.0f} sends/s, all delivered {many['total_seconds']} s after the first send, "
            f"{many['drain_seconds']} s after the last) [target >= {TARGET_DELIVERIES_PER_S:.0f}/s: "
            f"{met(many['target_met'])}]")
    if batch:
        calls = batch.get("call_ms") or {}
        summary(f"fanout.one_call_to_many.deliveries_per_s {batch['deliveries_per_second']:.0f} "
                f"({batch['recipients']} users, {batch['recipients_per_call']} recipients per push.send, "
                f"{batch['calls']} calls one at a time, each answered in p50 {calls.get('p50')} ms / max "
                f"{calls.get('max')} ms; all delivered {batch['total_seconds']} s after the first call)")
        by_service = batch.get("cpu_microseconds_per_recipient_by_service") or {}
        summary(f"fanout.one_call_to_many.services_cpu_us_per_recipient "
                f"{batch.get('services_cpu_microseconds_per_recipient')} ("
                + ", ".join(f"{k} {v}" for k, v in sorted(by_service.items())) + ")")
    summary(f"fanout.dispatch_cpu_us_per_delivery {figures['dispatch_cpu_us_per_delivery']:.0f}")
    for name, value in memory_after.items():
        summary(f"memory.after_fanout.{name}.mb {value}")
    update_memory_result(ctx, "after_fanout_mb", memory_after)


def register_direct_devices(dispatch_url, token, count):
    """Registers `count` direct devices for the token's user over one multiplexed connection; returns their ids."""
    host, port = dispatch_url.rsplit("//", 1)[1].rsplit(":", 1)
    body = json.dumps({"jsonrpc": "2.0", "method": "devices.register", "params": {"platform": "direct"}, "id": 1})

    async def go():
        conn = H2Connection(host, int(port))
        await conn.connect()
        ids = []
        try:
            for start_at in range(0, count, REGISTER_IN_FLIGHT):
                replies = await asyncio.gather(*(conn.post("/rpc", body.encode(), [("authorization", f"Bearer {token}")])
                                                 for _ in range(min(REGISTER_IN_FLIGHT, count - start_at))))
                for _, raw in replies:
                    reply = json.loads(raw)
                    if "result" not in reply:
                        raise BenchError(f"devices.register failed: {raw[:300]!r}")
                    ids.append(reply["result"]["deviceId"])
        finally:
            await conn.close()
        return ids

    return asyncio.run(go())


def raise_open_file_limit():
    """Raises this driver's soft open-file limit to its hard limit; the services and clients it starts inherit it
    (users' systems are not touched). Returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class StreamClients:
    """event_streams.py processes holding one connection per device between them; the driver talks to them over
    their stdin/stdout (see that file)."""

    def __init__(self, ctx, dispatch_url, token, device_ids, processes):
        host, port = dispatch_url.rsplit("//", 1)[1].rsplit(":", 1)
        token_file = os.path.join(ctx["work"], "devices-token")
        with open(token_file, "w") as f:
            f.write(token)
        self.procs = []
        share = -(-len(device_ids) // processes)
        for index in range(processes):
            chunk = device_ids[index * share:(index + 1) * share]
            if not chunk:
                continue
            ids_file = os.path.join(ctx["work"], f"devices-{index}.txt")
            with open(ids_file, "w") as f:
                f.write("\n".join(chunk) + "\n")
            proc = subprocess.Popen(
                [sys.executable, "-u", os.path.join(os.path.dirname(os.path.abspath(__file__)), "event_streams.py"),
                 host, port, token_file, ids_file, "--timeout", "900"] + DEVICE_HEADER_OPTIONS,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(os.path.join(ctx["logs"],
                                                                                        f"event-streams-{index}.log"), "ab"),
                preexec_fn=_pdeathsig)
            _children.append((f"event-streams-{index}", proc))
            self.procs.append(proc)

    def _read_all(self, key, timeout):
        docs = []
        deadline = time.monotonic() + timeout
        for proc in self.procs:
            while True:
                if time.monotonic() > deadline:
                    raise BenchError(f"event stream clients gave no '{key}' within {timeout} s")
                line = proc.stdout.readline()  # the clients bound their own run (--timeout)
                if not line:
                    raise BenchError(f"an event stream client exited (code {proc.poll()}) before '{key}'")
                doc = json.loads(line)
                if key in doc:
                    docs.append(doc)
                    break
        return docs

    def wait_ready(self, timeout):
        docs = self._read_all("ready", timeout)
        return sum(d["ready"] for d in docs), sum(d["failed"] for d in docs), max(d["seconds"] for d in docs)

    def collect_events(self, limit_s):
        """Each stream's first-event time (monotonic seconds), and how many streams have none: every client reports
        once all its streams have their event; after `limit_s` the rest are asked to report what they have."""
        deadline = time.monotonic() + limit_s
        asked = False
        docs = []
        for proc in self.procs:
            while True:
                if not asked and time.monotonic() > deadline:
                    self._ask_report()
                    asked = True
                if not select.select([proc.stdout], [], [], 0.5)[0]:
                    if time.monotonic() > deadline + 60:
                        raise BenchError("an event stream client did not report")
                    continue
                line = proc.stdout.readline()
                if not line:
                    raise BenchError(f"an event stream client exited (code {proc.poll()}) before its report")
                doc = json.loads(line)
                if "events" in doc:
                    docs.append(doc)
                    break
        return [t for d in docs for t in d["events"]], sum(d["missing"] for d in docs)

    def _ask_report(self):
        for proc in self.procs:
            try:
                proc.stdin.write(b"report\n")
                proc.stdin.flush()
            except BrokenPipeError:
                pass

    def close(self):
        for proc in self.procs:
            try:
                proc.stdin.write(b"quit\n")
                proc.stdin.close()
            except BrokenPipeError:
                pass
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                stop(proc)


def latency_summary(samples_ms):
    ordered = sorted(samples_ms)
    if not ordered:
        return {"p50": None, "p99": None, "max": None}

    def at(q):
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)

    return {"p50": at(0.50), "p99": at(0.99), "max": round(ordered[-1], 1)}


def bench_devices(ctx, prof):
    """The direct channel at scale: N direct devices of one user, each holding an event stream on its own
    connection; push-dispatch's RSS per connected device, its CPU while they idle, and one push.send to the user."""
    n = ctx.get("devices") or prof["devices"]
    fd_limit = raise_open_file_limit()
    if fd_limit < n + 1000:
        raise BenchError(f"open-file limit {fd_limit} is too low for {n} connections in push-dispatch")
    processes = max(1, -(-n // DEVICES_PER_CLIENT_PROCESS))
    stack = start_stack(ctx, "devices", dispatch_env={"SECUREPUSH_DISPATCH_KEEPALIVE": DEVICES_KEEPALIVE_S})
    clients = None
    try:
        user_id, access, _ = fetch_user(stack["auth_url"])
        backend = rpc(stack["auth_url"], "auth.clientToken",
                      {"clientId": BACKEND_CLIENT_ID, "clientSecret": BACKEND_CLIENT_SECRET})["accessToken"]
        started = time.monotonic()
        device_ids = register_direct_devices(stack["dispatch_url"], access, n)
        register_s = time.monotonic() - started
        dispatch = stack["dispatch"]
        time.sleep(2)
        rss_before = rss_detail_mb(dispatch.pid)
        clients = StreamClients(ctx, stack["dispatch_url"], access, device_ids, processes)
        ready, failed, connect_s = clients.wait_ready(timeout=600)
        if failed or ready != n:
            raise BenchError(f"{ready} of {n} event streams opened ({failed} failed); see the service logs")
        time.sleep(DEVICES_SETTLE_S)  # first drains done, allocator settled
        rss_after = rss_detail_mb(dispatch.pid)
        split_before = cpu_split_seconds([dispatch.pid])
        idle_started = time.monotonic()
        time.sleep(prof["devices_idle_seconds"])
        split_after = cpu_split_seconds([dispatch.pid])
        idle_cpu = sum(split_after) - sum(split_before)
        idle_kernel = split_after[1] - split_before[1]
        idle_wall = time.monotonic() - idle_started
        rss_idle = rss_detail_mb(dispatch.pid)
        sent_at = time.monotonic()
        reply = rpc(stack["dispatch_url"], "push.send", {"recipientId": user_id, "payload": "ten thousand"}, backend)
        answered_at = time.monotonic()
        accepted_ms = (answered_at - sent_at) * 1000
        if len(reply.get("deliveries", [])) != n:
            raise BenchError(f"push.send queued {len(reply.get('deliveries', []))} deliveries, expected {n}")
        times, missing = clients.collect_events(DEVICES_EVENT_TIMEOUT_S)
        rss_end = rss_detail_mb(dispatch.pid)
    finally:
        if clients:
            clients.close()
        stop_stack(stack)
    # Issue 33 times each device from push.send's answer; from the request is kept beside it (issue 14's origin).
    latencies = [(t - answered_at) * 1000 for t in times]
    from_request = latency_summary([(t - sent_at) * 1000 for t in times])
    per_device_kb = round((rss_after["VmRSS"] - rss_before["VmRSS"]) * 1024 / n, 1)
    idle_pct = round(idle_cpu / idle_wall * 100, 2)
    latency = latency_summary(latencies)
    figures = {
        "devices": n, "streams_open": ready, "client_processes": len(clients.procs),
        "register_seconds": round(register_s, 1), "connect_seconds": connect_s,
        "rss_before_streams_mb": rss_before, "rss_with_streams_mb": rss_after, "rss_after_idle_mb": rss_idle,
        "rss_after_send_mb": rss_end,
        "rss_per_device_kb": per_device_kb,
        "idle_cpu_percent_of_core": idle_pct, "idle_seconds": round(idle_wall, 1),
        # The system-time part: mostly the keepalives' loopback TCP sends, which on loopback include delivering each
        # segment into the client's socket.
        "idle_kernel_cpu_percent_of_core": round(idle_kernel / idle_wall * 100, 2),
        "push_send_ms": round(accepted_ms, 1),
        "push_to_all_ms": latency, "push_to_all_from_request_ms": from_request,
        "events_received": len(latencies), "events_missing": missing,
    }
    figures["target_rss_met"] = per_device_kb <= TARGET_DEVICE_RSS_KB
    figures["target_idle_cpu_met"] = idle_pct < TARGET_IDLE_CPU_PCT
    figures["target_latency_met"] = missing == 0 and latency["max"] is not None \
        and latency["max"] <= TARGET_PUSH_TO_ALL_MS
    settings = {
        "profile": ctx["profile"],
        "driver": "Benchmarks/event_streams.py (asyncio, Python standard library), "
                  f"{DEVICES_PER_CLIENT_PROCESS} connections per process at most",
        "topology": "auth, notification-store and push-dispatch, cleartext h2c, SQLite; one user with N direct "
                    "devices (devices.register), each holding GET /devices/{id}/events on its own connection",
        "request_fields": ("literals, not indexed" if "--literal-headers" in DEVICE_HEADER_OPTIONS
                           else ":authority, accept and authorization indexed in push-dispatch's HPACK table; "
                                ":method, :scheme and :path literals"),
        "request_pad_bytes": DEVICE_PAD_BYTES,
        "keepalive_seconds": int(DEVICES_KEEPALIVE_S), "settle_seconds": DEVICES_SETTLE_S,
        "rss_per_device": "(push-dispatch VmRSS with every stream open - before any) / N",
        "latency_origin": "push.send's answer (push_to_all_ms) or just before it is sent (push_to_all_from_request_ms); "
                          "each stream's first push.notify DATA frame, CLOCK_MONOTONIC in each client process",
        "open_file_limit": fd_limit,
        "targets": {"rss_per_device_kb_max": TARGET_DEVICE_RSS_KB, "idle_cpu_percent_max": TARGET_IDLE_CPU_PCT,
                    "push_to_all_ms_max": TARGET_PUSH_TO_ALL_MS},
    }
    write_result(ctx["out"], "devices", settings, figures)
    summary(f"devices.rss_per_device_kb {per_device_kb} ({n} event streams; push-dispatch {rss_before['VmRSS']} MB "
            f"-> {rss_after['VmRSS']} MB, {rss_after.get('Threads')} threads) "
            f"[target <= {TARGET_DEVICE_RSS_KB:.0f} kB: {met(figures['target_rss_met'])}]")
    summary(f"devices.idle_cpu_percent {idle_pct} ({idle_cpu:.2f} s CPU in {idle_wall:.0f} s, of which kernel "
            f"{idle_kernel:.2f} s; keepalive "
            f"{DEVICES_KEEPALIVE_S} s) [target < {TARGET_IDLE_CPU_PCT:.0f}%: {met(figures['target_idle_cpu_met'])}]")
    summary(f"devices.push_to_all_ms p50 {latency['p50']} p99 {latency['p99']} max {latency['max']} "
            f"from push.send's answer ({len(latencies)} of {n} received in {len(clients.procs)} client processes; "
            f"push.send {accepted_ms:.0f} ms, max from its request {from_request['max']}) "
            f"[target max <= {TARGET_PUSH_TO_ALL_MS:.0f} ms: {met(figures['target_latency_met'])}]")


def update_memory_result(ctx, key, values):
    """Adds the memory at the end of another benchmark to memory.json (written by the fetch benchmark)."""
    path = os.path.join(ctx["out"], "memory.json")
    if not os.path.exists(path):
        return
    with open(path) as f:
        doc = json.load(f)
    doc["figures"][key] = values
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


# ---------------------------------------------------------------------------------------------------------------
# HTTP/2 core: the libnghttp2 core alone (h2core-bench-server) vs nginx (1 worker) vs nghttpd, one fixed body

H2CORE_BODY_BYTES = 430  # the size of store.get's response in the fetch benchmark


def h2core_body():
    """A store.get-shaped JSON-RPC response padded to exactly H2CORE_BODY_BYTES bytes."""
    head = '{"jsonrpc":"2.0","id":1,"result":{"notificationId":"0b6f7c1e-5d2a-4c8e-9a51-3f0d2b7e4c19","payload":"'
    tail = '","createdAt":"2026-11-24T07:00:00Z"}}'
    filler = ("Your one-time code is 482913. " * 20)[:H2CORE_BODY_BYTES - len(head) - len(tail)]
    body = (head + filler + tail).encode()
    assert len(body) == H2CORE_BODY_BYTES
    return body


def bench_h2core(ctx, prof):
    work = ctx["work"]
    body = h2core_body()
    body_file = os.path.join(work, "h2core-response.json")
    with open(body_file, "wb") as f:
        f.write(body)
    request_file = os.path.join(work, "h2core-request.json")
    with open(request_file, "w") as f:
        f.write('{"jsonrpc":"2.0","method":"store.get","params":{"notificationId":"0b6f7c1e"},"id":1}')
    core_port, nginx_port, nghttpd_port = free_ports(3)

    core = start("h2core", [os.path.join(ctx["bin"], "h2core-bench-server"), "--port", str(core_port),
                            "--body-file", body_file, "--threads", "1"], None,
                 os.path.join(ctx["logs"], "h2core.log"))
    prefix = os.path.join(work, "nginx-h2core")
    conf = nginx_conf(prefix, body, nginx_port, workers=1)
    nginx = start("nginx", ["nginx", "-p", prefix, "-c", conf, "-e", os.path.join(prefix, "error.log")], None,
                  os.path.join(ctx["logs"], "nginx-h2core.log"))
    docroot = os.path.join(work, "nghttpd-root")
    os.makedirs(docroot, exist_ok=True)
    shutil.copyfile(body_file, os.path.join(docroot, "rpc"))
    nghttpd = start("nghttpd", ["nghttpd", "--no-tls", "-d", docroot, "-a", "127.0.0.1", str(nghttpd_port)], None,
                    os.path.join(ctx["logs"], "nghttpd.log"))

    servers = [("h2core", core, f"http://127.0.0.1:{core_port}/rpc", lambda: [core.pid]),
               ("nginx", nginx, f"http://127.0.0.1:{nginx_port}/rpc", lambda: [nginx.pid] + _child_pids(nginx.pid)),
               ("nghttpd", nghttpd, f"http://127.0.0.1:{nghttpd_port}/rpc", lambda: [nghttpd.pid])]
    for name, proc, url, _ in servers:
        deadline = time.monotonic() + HEALTH_TIMEOUT
        while True:
            if proc.poll() is not None:
                raise BenchError(f"{name} exited with {proc.returncode}; see {ctx['logs']}")
            res = run(["curl", "-s", "--http2-prior-knowledge", "--max-time", "2", "--data-binary",
                       f"@{request_file}", url], timeout=10, check=False)
            if res.returncode == 0 and res.stdout == body:
                break
            if time.monotonic() > deadline:
                raise BenchError(f"{name} did not serve the body: {res.stdout[:200]!r} {res.stderr[:200]!r}")
            time.sleep(0.2)

    n, warm = prof["fetch_requests"], prof["fetch_warmup"]
    results = {name: [] for name, _, _, _ in servers}
    for rnd in range(1, prof["rounds"] + 1):
        for name, _, url, pids in servers:
            if warm:
                check_h2load(f"{name} warm-up", h2load(url, warm, CLIENTS, STREAMS, request_file, []), warm, len(body))
            log_file = os.path.join(work, f"h2load-h2core-{name}-{rnd}.log")
            cpu0 = cpu_seconds(pids())
            r = h2load(url, n, CLIENTS, STREAMS, request_file, [], log_file)
            cpu1 = cpu_seconds(pids())
            check_h2load(f"{name} (round {rnd})", r, n, len(body))
            r["server_cpu_us_per_request"] = round((cpu1 - cpu0) / n * 1e6, 2)
            r["latency"] = percentiles(log_file)
            r["round"] = rnd
            results[name].append(r)
            print(f"  round {rnd} {name:8} {r['rps']:>10.0f} req/s  p50 {r['latency']['p50_ms']:.2f} ms  "
                  f"p99 {r['latency']['p99_ms']:.2f} ms  server CPU {r['server_cpu_us_per_request']:.1f} us/req",
                  flush=True)
    rss = {"h2core_rss_mb": mb(rss_kb(core.pid))}

    figures = {}
    for name in results:
        runs = results[name]
        figures[name] = {
            "rps": round(statistics.median(r["rps"] for r in runs), 1),
            "p50_ms": round(statistics.median(r["latency"]["p50_ms"] for r in runs), 3),
            "p99_ms": round(statistics.median(r["latency"]["p99_ms"] for r in runs), 3),
            "cpu_us_per_request": statistics.median(r["server_cpu_us_per_request"] for r in runs),
            "per_round_rps": [r["rps"] for r in runs],
        }
    ratios = [c["rps"] / g["rps"] for c, g in zip(results["h2core"], results["nginx"])]
    figures["h2core"]["ratio_to_nginx"] = round(statistics.median(ratios), 3)
    figures["h2core"].update(rss)
    settings = {
        "profile": ctx["profile"], "rounds": prof["rounds"], "h2load": f"-c {CLIENTS} -m {STREAMS} -n {n}",
        "warmup_requests_per_run": warm, "response_body_bytes": len(body),
        "servers": "h2core-bench-server (HTTP2Core on libnghttp2, 1 event loop thread, answers on the event loop); "
                   "nginx 1 worker (return 200 '<same bytes>'); nghttpd --no-tls -d (one thread, static file)",
        "statistic": "median over rounds", "tools": ctx["tools"],
    }
    write_result(ctx["out"], "h2core", settings, figures, {"runs": results})
    for name in results:
        f = figures[name]
        summary(f"h2core.{name}.rps {f['rps']:.0f} p50_ms {f['p50_ms']:.2f} p99_ms {f['p99_ms']:.2f} "
                f"cpu_us_per_request {f['cpu_us_per_request']:.1f}")
    summary(f"h2core.ratio_to_nginx {figures['h2core']['ratio_to_nginx']:.2f}")


# ---------------------------------------------------------------------------------------------------------------

def scan_logs(ctx):
    """Service log lines (the services run at log level warning, so every line is worth a look)."""
    findings = {}
    for name in sorted(os.listdir(ctx["logs"])):
        path = os.path.join(ctx["logs"], name)
        with open(path, errors="replace") as f:
            lines = [l.rstrip("\n") for l in f if l.strip()]
        if lines:
            findings[name] = {"lines": len(lines), "first": lines[:5]}
    return findings


# ---------------------------------------------------------------------------------------------------------------
# bounds: requests that never end (issue 23), measured

def bench_bounds(ctx, prof):
    """CONNECTIONS x 100 streams of never-ending `POST /rpc` bodies against one store-service (slow_requests.py):
    the service's RSS before, at its peak and after, the request bytes it buffered (its own gauge), and when the
    streams were answered. Each connection may buffer SECUREPUSH_MAX_CONNECTION_BUFFER_BYTES (2 MiB) plus one window;
    every stream gets 408 after SECUREPUSH_REQUEST_TIMEOUT (10 s)."""
    connections = 4 if ctx["profile"] == "smoke" else 40
    auth_port, store_port = free_ports(2)
    auth, auth_url, _ = start_auth(ctx, "bounds-auth", auth_port, 10)
    store, url = start_store(ctx, "bounds-store", store_port, auth_url)
    wait_healthy("bounds-store", url, store)
    time.sleep(1.0)
    before = rss_kb(store.pid)
    samples, buffered, stop_sampling = [], [], threading.Event()

    def sample():
        while not stop_sampling.is_set():
            samples.append(rss_kb(store.pid))
            status, body = scrape_metrics(url)
            for line in body.splitlines():
                if status == 200 and line.startswith("securepush_http_buffered_request_bytes "):
                    buffered.append(float(line.rsplit(" ", 1)[1]))
            stop_sampling.wait(0.25)

    sampler = threading.Thread(target=sample)
    sampler.start()
    started = time.monotonic()
    res = run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "slow_requests.py"),
               str(store_port), str(connections), "100", "30"], timeout=90)
    attack_seconds = time.monotonic() - started
    time.sleep(2.0)
    stop_sampling.set()
    sampler.join()
    after = rss_kb(store.pid)
    health = run(curl_base(url) + ["-o", "/dev/null", "-w", "%{http_code}", url + "/health"], timeout=30,
                 check=False).stdout.decode()
    report = json.loads(res.stdout)
    peak = max(samples) if samples else before
    budget = 2 << 20
    figures = {
        "connections": connections, "streams": report["streams"], "bytes_sent_by_client": report["sent"],
        "ended": report["ended"], "first_end_s": report["first_end"], "last_end_s": report["last_end"],
        "attack_s": round(attack_seconds, 1),
        "rss_before_mb": mb(before), "rss_peak_mb": mb(peak), "rss_after_mb": mb(after),
        "rss_peak_per_connection_kb": round((peak - before) / connections, 1),
        "buffered_request_bytes_peak": max(buffered) if buffered else None,
        "buffered_budget_bytes": connections * (budget + 65535), "health_after": health,
    }
    write_result(ctx["out"], "bounds", {"connections": connections, "streams_per_connection": 100,
                                        "request_timeout_s": 10, "buffer_budget_bytes": budget}, figures)
    summary(f"bounds: {connections} connections x 100 never-ending streams: client got {report['sent'] / 1048576:.1f} "
            f"MiB in (budget {connections * (budget + 65535) / 1048576:.1f} MiB); store RSS {mb(before)} -> peak "
            f"{mb(peak)} -> {mb(after)} MB; streams ended {report['ended']} between {report['first_end']} and "
            f"{report['last_end']} s; /health after: {health}")
    stop(store)
    stop(auth)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--only", choices=["fetch", "fetch-metrics", "send", "fanout", "signin", "h2core", "devices",
                                       "bounds", "webhooks"],
                    action="append")
    ap.add_argument("--devices", type=int, help="direct devices for `devices` (default 10000, 200 with --smoke)")
    ap.add_argument("--keep-work", action="store_true", help="keep the temporary directory (logs, configs)")
    args = ap.parse_args()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)

    global MACHINE
    MACHINE = machine()
    profile = "smoke" if args.smoke else "full"
    prof = PROFILES[profile]
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="securepush-bench-")
    ctx = {"bin": os.path.abspath(args.bin_dir), "out": os.path.abspath(args.out), "work": work,
           "logs": os.path.join(work, "logs"), "certs": os.path.join(work, "certs"), "profile": profile,
           "tools": tool_versions(), "devices": args.devices}
    os.makedirs(ctx["logs"])
    only = args.only or ["fetch", "fetch-metrics", "send", "fanout", "signin", "webhooks"]
    services_needed = only != ["h2core"]
    needed = ["auth-service", "store-service", "dispatch-service", "securepush", "securepush-bench"] \
        if services_needed else []
    if "h2core" in only:
        needed.append("h2core-bench-server")
    for exe in needed:
        if not os.access(os.path.join(ctx["bin"], exe), os.X_OK):
            raise BenchError(f"missing executable {exe} in {ctx['bin']}")

    started = time.monotonic()
    print(f"SecurePush benchmarks ({profile}) — {MACHINE['cores']} cores, {MACHINE['model']}, "
          f"load {MACHINE['loadavg_at_start'][0]:.2f}; work dir {work}", flush=True)
    ok = False
    try:
        if services_needed:
            run([os.path.join(ctx["bin"], "securepush"), "certs", "--out", ctx["certs"], "--ca-dir",
                 os.path.join(work, "ca")], timeout=60)
        if "fetch" in only:
            print("== fetch path (store.get) vs nginx, and memory", flush=True)
            bench_fetch(ctx, prof)
        if "fetch-metrics" in only:
            print("== cost of metrics on the fetch path (store.get, SECUREPUSH_METRICS on vs off)", flush=True)
            bench_fetch_metrics(ctx, prof)
        if "send" in only:
            print("== send path (push.send to a direct-channel device)", flush=True)
            bench_send(ctx, prof)
        if "fanout" in only:
            print("== fan-out into the APNs mock", flush=True)
            bench_fanout(ctx, prof)
        if "signin" in only:
            print("== sign-in (auth.login, auth.refresh)", flush=True)
            bench_signin(ctx, prof)
        if "webhooks" in only:
            print("== webhooks: events per second to a local receiver, sends with and without an endpoint", flush=True)
            bench_webhooks(ctx, prof)
        if "devices" in only:
            print("== direct channel: one event stream per device, each on its own connection", flush=True)
            bench_devices(ctx, prof)
        if "bounds" in only:
            print("== requests that never end: what they cost one service, and when they end", flush=True)
            bench_bounds(ctx, prof)
        if "h2core" in only:
            print("== HTTP/2 core (libnghttp2) vs nginx (1 worker) vs nghttpd, same body", flush=True)
            bench_h2core(ctx, prof)
        ok = True
    finally:
        stop_all()
        logs = scan_logs(ctx)
        logs_out = os.path.join(ctx["out"], "logs")
        shutil.rmtree(logs_out, ignore_errors=True)
        shutil.copytree(ctx["logs"], logs_out)
        elapsed = time.monotonic() - started
        with open(os.path.join(ctx["out"], "summary.txt"), "w") as f:
            f.write("\n".join(SUMMARY) + "\n")
        if logs:
            print("service log lines (level warning and above), see " + logs_out + ":")
            for name, info in logs.items():
                print(f"  {name}: {info['lines']} line(s); first: {info['first'][0][:300]}")
        print(f"{'done' if ok else 'FAILED'} in {elapsed:.0f} s; results in {ctx['out']}", flush=True)
        if not args.keep_work:
            shutil.rmtree(work, ignore_errors=True)


MACHINE = {}

if __name__ == "__main__":
    try:
        main()
    except BenchError as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt as exc:
        print(f"interrupted ({exc})", file=sys.stderr)
        sys.exit(130)

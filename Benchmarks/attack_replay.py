#!/usr/bin/env python3
"""Issue 23's attacks, tried again against a running SecurePush (cleartext, on 127.0.0.1), with what each cost.

    attack_replay.py --auth PORT --store PORT --dispatch PORT [--trusted-proxy] [--tls-port PORT] [--only NAME ...]

Each attack prints one JSON line (what was sent, what the services answered, how long it took) and `ok` or
`FAILED`; the exit status is 1 if any failed. Sources 127.0.0.2 and up are other "addresses" (Linux routes all of
127/8 to loopback). The deployment runs with its defaults except where noted:

  never-ending     20 HTTP/2 connections x 100 never-ended POST streams each to auth and to the store, while
                   /health of all three is polled: every stream must end (408 or reset) within the request timeout
                   plus 5 s, and every health check must answer.
  trickle-http1    (with --tls-port: HTTP/1.1 is offered on TLS listeners only) an HTTP/1.1 request whose body
                   arrives one byte a second: 408 and the connection closed.
  connections      1,500 connections from 127.0.0.9 to the store: at most SECUREPUSH_MAX_CONNECTIONS_PER_ADDRESS
                   (512) stay open, and 127.0.0.1 is still served.
  forwarded        (with --trusted-proxy: the deployment trusts 127.0.0.1 and reads X-Forwarded-For) 60 wrong
                   passwords for one account, each with the proxy's X-Forwarded-For and a new spoofed `Forwarded`:
                   the spoofed header is ignored, so the address's limits refuse most of them.
  signin-flood     20 addresses sign in to one account as fast as they can for 20 s; another address signs in to
                   its own account 5 times meanwhile, 3 s apart: every one of those succeeds.
  logout-flood     400 auth.logout calls (batches of 100) from one address: the rate limit refuses most, and
                   another address's auth.refresh still succeeds.
"""
import argparse
import json
import os
import socket
import ssl
import sys
import threading
import time
import uuid

import httpx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import slow_requests  # noqa: E402  (the never-ending streams, shared with `run.sh --only bounds`)


def client(source="127.0.0.1", timeout=60.0):
    """An h2c (prior knowledge) client whose connections come from `source`."""
    return httpx.Client(http1=False, http2=True, timeout=timeout,
                        transport=httpx.HTTPTransport(http1=False, http2=True, local_address=source))


def rpc(http, port, method, params, headers=None):
    """One JSON-RPC call; returns (result, error) where error is the JSON-RPC error object or an HTTP status."""
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    response = http.post(f"http://127.0.0.1:{port}/rpc", json=body, headers=headers or {})
    if response.status_code != 200:
        return None, {"code": "http", "message": str(response.status_code)}
    answer = response.json()
    return answer.get("result"), answer.get("error")


def batch(http, port, calls):
    body = [{"jsonrpc": "2.0", "id": index, "method": method, "params": params}
            for index, (method, params) in enumerate(calls)]
    response = http.post(f"http://127.0.0.1:{port}/rpc", json=body)
    return response.json() if response.status_code == 200 else []


def register(http, auth, username, password):
    result, error = rpc(http, auth, "auth.register", {"username": username, "password": password})
    if error and error.get("code") != -32011:  # already registered is fine
        if "exists" not in error.get("message", "") and "taken" not in error.get("message", ""):
            raise RuntimeError(f"auth.register {username}: {error}")


def report(name, ok, **measured):
    print(json.dumps({"attack": name, "result": "ok" if ok else "FAILED", **measured}), flush=True)
    return ok


def never_ending(args):
    streams_report = {"lock": threading.Lock(), "sent": 0, "streams": 0, "ended": {}, "first_end": float("inf"),
                      "last_end": 0.0}
    start = time.time()
    seconds = args.request_timeout + 5
    threads = [threading.Thread(target=slow_requests.attack, args=(port, 100, seconds + 5, streams_report, start))
               for port in (args.auth, args.store) for _ in range(20)]
    health = {"checks": 0, "failed": 0, "slowest": 0.0}

    def poll():
        with client(timeout=5.0) as http:
            while time.time() - start < seconds:
                for port in (args.auth, args.store, args.dispatch):
                    began = time.time()
                    try:
                        ok = http.get(f"http://127.0.0.1:{port}/health").status_code == 200
                    except httpx.HTTPError:
                        ok = False
                    health["checks"] += 1
                    health["failed"] += 0 if ok else 1
                    health["slowest"] = max(health["slowest"], round(time.time() - began, 3))
                time.sleep(0.5)

    poller = threading.Thread(target=poll)
    for thread in threads + [poller]:
        thread.start()
    for thread in threads + [poller]:
        thread.join()
    ended = sum(streams_report["ended"].values())
    return report("never-ending", ended == streams_report["streams"] and streams_report["last_end"] <= seconds
                  and health["failed"] == 0,
                  streams=streams_report["streams"], ended=streams_report["ended"],
                  last_end_s=round(streams_report["last_end"], 1),
                  bytes_let_in_mib=round(streams_report["sent"] / 2**20, 1), health=health)


def trickle_http1(args):
    if not args.tls_port:
        return report("trickle-http1", True, skipped="HTTP/1.1 is served on TLS listeners only: give --tls-port")
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["http/1.1"])
    sock = context.wrap_socket(socket.create_connection(("127.0.0.1", args.tls_port)))
    sock.sendall(b"POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 1000\r\n\r\n")
    start = time.time()
    answer = b""
    sock.settimeout(1.0)
    while time.time() - start < args.request_timeout + 10:
        try:
            sock.sendall(b"[")
        except OSError:
            break
        try:
            data = sock.recv(4096)
            if not data:
                break
            answer += data
        except socket.timeout:
            continue
        except OSError:
            break
    status = answer.split(b"\r\n", 1)[0].decode(errors="replace")
    return report("trickle-http1", status.split(" ")[1:2] == ["408"], status=status, closed_after_s=round(time.time() - start, 1))


def connections(args):
    held = []
    refused_at_connect = 0
    for _ in range(1500):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.9", 0))
        try:
            sock.connect(("127.0.0.1", args.store))
            sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            held.append(sock)
        except OSError:
            refused_at_connect += 1
            sock.close()
    time.sleep(2)
    still_open = 0
    for sock in held:
        sock.setblocking(False)
        alive = True
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    alive = False
                    break
        except BlockingIOError:
            pass
        except OSError:
            alive = False
        still_open += 1 if alive else 0
    with client() as http:
        _, error = rpc(http, args.store, "store.get", {"id": "00000000-0000-0000-0000-000000000000"})
    served = error is not None and error.get("code") != "http"  # any JSON-RPC answer (unauthenticated) is service
    for sock in held:
        sock.close()
    return report("connections", still_open <= args.max_per_address and served, attempted=1500,
                  still_open=still_open, refused_at_connect=refused_at_connect, other_address_served=served)


def forwarded(args):
    with client() as http:
        username = f"spoof-{uuid.uuid4().hex[:8]}"
        register(http, args.auth, username, "right-password-123")
        answers = {}
        for index in range(60):
            _, error = rpc(http, args.auth, "auth.login", {"username": username, "password": "wrong-password"},
                           headers={"x-forwarded-for": "203.0.113.7",
                                    "forwarded": f"for=198.51.100.{index + 1}"})
            code = str(error.get("code")) if error else "ok"
            answers[code] = answers.get(code, 0) + 1
    checked = answers.get("-32001", 0)
    return report("forwarded", answers.get("-32029", 0) > 0 and checked < 60, answers=answers)


def signin_flood(args):
    with client() as http:
        target = f"flood-{uuid.uuid4().hex[:8]}"
        bystander = f"bystander-{uuid.uuid4().hex[:8]}"
        register(http, args.auth, target, "flood-password-123")
        register(http, args.auth, bystander, "bystander-password-1")
    stop = time.time() + 20
    flood = {"ok": 0, "refused": 0, "other": 0}
    lock = threading.Lock()

    def flooder(source):
        with client(source) as http:
            while time.time() < stop:
                try:
                    _, error = rpc(http, args.auth, "auth.login", {"username": target,
                                                                   "password": "flood-password-123"})
                except httpx.HTTPError:
                    error = {"code": "transport"}
                with lock:
                    key = "ok" if error is None else "refused" if error.get("code") == -32029 else "other"
                    flood[key] += 1
                if error is not None and error.get("code") == -32029:
                    time.sleep(1)  # a real flooder backs off a little; it changes nothing about the budget

    threads = [threading.Thread(target=flooder, args=(f"127.0.0.{10 + index}",)) for index in range(20)]
    for thread in threads:
        thread.start()
    time.sleep(2)
    bystander_answers = []
    with client("127.0.0.200") as http:
        for attempt in range(5):
            if attempt:
                time.sleep(3)  # a person signing in again, on another device or tab: not five at once
            began = time.time()
            _, error = rpc(http, args.auth, "auth.login", {"username": bystander,
                                                           "password": "bystander-password-1"})
            bystander_answers.append({"ok": error is None, "error": error,
                                      "seconds": round(time.time() - began, 2)})
    for thread in threads:
        thread.join()
    return report("signin-flood", all(answer["ok"] for answer in bystander_answers), flood=flood,
                  bystander=bystander_answers)


def logout_flood(args):
    answers = {}
    with client("127.0.0.50") as http:
        for _ in range(4):
            for answer in batch(http, args.auth, [("auth.logout", {"refreshToken": uuid.uuid4().hex})] * 100):
                code = str(answer["error"]["code"]) if "error" in answer else "ok"
                answers[code] = answers.get(code, 0) + 1
    with client() as http:
        username = f"refresher-{uuid.uuid4().hex[:8]}"
        register(http, args.auth, username, "refresh-password-1")
        tokens, error = rpc(http, args.auth, "auth.login", {"username": username, "password": "refresh-password-1"})
        refreshed, refresh_error = rpc(http, args.auth, "auth.refresh", {"refreshToken": tokens["refreshToken"]}) \
            if tokens else (None, error)
    return report("logout-flood", answers.get("-32029", 0) > 200 and refreshed is not None, answers=answers,
                  other_address_refresh="ok" if refreshed else refresh_error)


ATTACKS = {"never-ending": never_ending, "trickle-http1": trickle_http1, "connections": connections,
           "forwarded": forwarded, "signin-flood": signin_flood, "logout-flood": logout_flood}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--auth", type=int, required=True)
    parser.add_argument("--store", type=int, required=True)
    parser.add_argument("--dispatch", type=int, required=True)
    parser.add_argument("--trusted-proxy", action="store_true")
    parser.add_argument("--tls-port", type=int, help="a TLS listener of the deployment (for trickle-http1)")
    parser.add_argument("--request-timeout", type=float, default=10)
    parser.add_argument("--max-per-address", type=int, default=512)
    parser.add_argument("--only", action="append", choices=sorted(ATTACKS))
    args = parser.parse_args()
    names = args.only or [name for name in ATTACKS if name != "forwarded" or args.trusted_proxy]
    results = [ATTACKS[name](args) for name in names]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()

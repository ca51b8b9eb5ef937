"""A Standard Webhooks (https://www.standardwebhooks.com) receiver for the tests that check SecurePush's signed
webhooks independently: each request is verified with PyPI's `standardwebhooks`, never with SecurePush's own code.

`WebhookReceiver(secrets)` listens on 127.0.0.1 on a free port in a daemon thread and records every POST (to any path;
`.url` names `/hook`) as a dict:

- `id`, `timestamp`, `signatures`: the raw `webhook-id`, `webhook-timestamp`, `webhook-signature` headers (or None);
- `body`: the parsed JSON (None if it is not JSON), `raw`: the bytes as received;
- `verified_with`: the indices of the current secrets whose `Webhook.verify` accepts it (the package's tolerance is
  5 minutes either way; malformed headers or a non-UTF-8 body count as not verified);
- `status`: what it answered, `hung`: seconds it waited first, `time`: `time.monotonic()` on arrival.

It answers 204, or 401 when no secret verifies. A test scripts the sender's retries with `fail_next(n, status)` (the
next n requests, verified or not, get `status`) and its timeout with `hang_next(n, seconds)` (the next n wait that
long before answering); `set_secrets` swaps the secrets for rotation tests. A request is recorded on arrival, so a
hung one is visible before it is answered.

As a script: `python3 webhook_receiver.py --secret whsec_... [--secret ...] [--port N]` prints one JSON line per
delivery; `--self-test` checks the receiver against the package's own signer.
"""

import argparse
import base64
import http.server
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone

from standardwebhooks.webhooks import Webhook


def _verifies(secret, raw, headers):
    try:
        Webhook(secret).verify(raw, headers, json_parse=False)
        return True
    except Exception:  # WebhookVerificationError, but also ValueError/UnicodeDecodeError on malformed input
        return False


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, hang = self.server.receiver._record(raw, {k.lower(): v for k, v in self.headers.items()})
        if hang:
            time.sleep(hang)
        try:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()
        except OSError:  # the sender gave up (its timeout) while we hung
            pass

    def log_message(self, *args):
        pass


class WebhookReceiver:
    def __init__(self, secrets, port=0, on_delivery=None):
        self._lock = threading.Lock()
        self._secrets = list(secrets)
        self._records = []
        self._fail = []  # statuses for the next requests
        self._hang = []  # seconds for the next requests
        self._on_delivery = on_delivery
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self._server.daemon_threads = True  # close() does not wait for a hung handler
        self._server.receiver = self
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self._thread = threading.Thread(target=self._server.serve_forever, name="webhook-receiver", daemon=True)
        self._thread.start()

    def close(self):
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def set_secrets(self, secrets):
        with self._lock:
            self._secrets = list(secrets)

    def fail_next(self, n, status=500):
        with self._lock:
            self._fail.extend([status] * n)

    def hang_next(self, n, seconds):
        with self._lock:
            self._hang.extend([seconds] * n)

    def _record(self, raw, headers):
        with self._lock:
            secrets = list(self._secrets)
        verified = [i for i, s in enumerate(secrets) if _verifies(s, raw, headers)]
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with self._lock:
            hang = self._hang.pop(0) if self._hang else 0
            status = self._fail.pop(0) if self._fail else (204 if verified else 401)
            record = {"id": headers.get("webhook-id"), "timestamp": headers.get("webhook-timestamp"),
                      "signatures": headers.get("webhook-signature"), "body": body, "raw": raw,
                      "verified_with": verified, "status": status, "hung": hang, "time": time.monotonic()}
            self._records.append(record)
        if self._on_delivery:
            self._on_delivery(record)
        return status, hang

    def records(self):
        """A copy of everything recorded so far, oldest first."""
        with self._lock:
            return list(self._records)

    def events(self, type=None):
        """Verified deliveries, oldest first, whose body's `type` is `type` (any type when None)."""
        return [r for r in self.records() if r["verified_with"]
                and (type is None or (isinstance(r["body"], dict) and r["body"].get("type") == type))]

    def wait_for(self, predicate, timeout=10, interval=0.05):
        """Polls until `predicate(records)` is truthy and returns that value; AssertionError after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate(self.records())
            if value:
                return value
            if time.monotonic() > deadline:
                seen = [(r["id"], r["status"], r["verified_with"], r["body"]) for r in self.records()]
                raise AssertionError(f"timed out after {timeout}s; recorded (id, status, verified_with, body): {seen}")
            time.sleep(interval)


# --- script ----------------------------------------------------------------------------------------------------------

def _post(url, body, headers, timeout=5):
    request = urllib.request.Request(url, data=body.encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code


def _signed(secret, msg_id, body, ts=None):
    ts = int(time.time()) if ts is None else ts
    signature = Webhook(secret).sign(msg_id, datetime.fromtimestamp(ts, tz=timezone.utc), body)
    return {"webhook-id": msg_id, "webhook-timestamp": str(ts), "webhook-signature": signature,
            "content-type": "application/json"}


def self_test():
    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what, flush=True)
        assert ok, what

    def raised(call, *errors):
        try:
            call()
        except errors as e:
            return e

    vector = Webhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").sign(
        "msg_p5jXN8AQM9LWM0D4loKWxJek", datetime.fromtimestamp(1614265330, tz=timezone.utc), '{"test": 2432232314}')
    check(vector == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", "the spec's test vector signs as published")
    old, new = ("whsec_" + base64.b64encode(os.urandom(24)).decode() for _ in range(2))
    body = json.dumps({"type": "message.sent", "timestamp": "2026-01-01T00:00:00Z", "data": {"n": 1}})
    with WebhookReceiver([old, new]) as rx:
        check(_post(rx.url, body, _signed(new, "msg_1", body)) == 204, "signed delivery answered 204")
        check(rx.wait_for(lambda rs: rs and rs[-1]["verified_with"] == [1]), "recorded as verified with secret 1")
        check([r["id"] for r in rx.events("message.sent")] == ["msg_1"] and not rx.events("other"), "events(type)")
        check(_post(rx.url, body + " ", _signed(new, "msg_2", body)) == 401, "tampered body answered 401")
        check(rx.records()[-1]["verified_with"] == [] and len(rx.events()) == 1, "tampered body recorded, unverified")
        stale = _signed(new, "msg_3", body, ts=int(time.time()) - 600)
        check(_post(rx.url, body, stale) == 401, "timestamp 10 minutes old answered 401")
        rx.fail_next(2, status=503)
        statuses = [_post(rx.url, body, _signed(new, f"msg_f{i}", body)) for i in range(3)]
        check(statuses == [503, 503, 204], f"fail_next(2, 503) then 204: {statuses}")
        rx.hang_next(1, 1.0)
        started = time.monotonic()
        timed_out = raised(lambda: _post(rx.url, body, _signed(new, "msg_h", body), timeout=0.3),
                           TimeoutError, urllib.error.URLError)
        check(timed_out and time.monotonic() - started < 0.9, "hang_next(1, 1 s) outlasts a 0.3 s client timeout")
        check(rx.records()[-1]["hung"] == 1.0, "the hung request is recorded on arrival")
        check(_post(rx.url, body, _signed(new, "msg_4", body)) == 204, "the request after the hang answered at once")
        rx.set_secrets([old])
        check(_post(rx.url, body, _signed(new, "msg_5", body)) == 401, "set_secrets drops the rotated-out secret")
        check(_post(rx.url, body, _signed(old, "msg_6", body)) == 204, "set_secrets: the remaining secret verifies")
        error = raised(lambda: rx.wait_for(lambda rs: False, timeout=0.2), AssertionError)
        check(error and "msg_6" in str(error), "wait_for times out with an AssertionError naming what it saw")
    print("self-test ok")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--secret", action="append", default=[], help="whsec_... (repeatable)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.secret:
        parser.error("--secret is required (or --self-test)")

    def show(record):
        line = {k: v for k, v in record.items() if k != "raw"}
        line["raw"] = record["raw"].decode("utf-8", "replace")
        print(json.dumps(line), flush=True)

    rx = WebhookReceiver(args.secret, port=args.port, on_delivery=show)
    print(f"listening on {rx.url}", file=sys.stderr, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        rx.close()


if __name__ == "__main__":
    main()

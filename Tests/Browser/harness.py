"""Shared pieces of the browser tests: Chromium, a static server for Clients/Web, `securepush up` as a child process,
the CLI, JSON-RPC over HTTP/1.1, and the service worker driven through the DevTools protocol.

Every wait has a deadline; every process and server a test starts is stopped by a cleanup that runs on failure too.
"""

import functools
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WEB = os.path.join(ROOT, "Clients", "Web")
FIXTURE = os.path.join(ROOT, "Tests", "Fixtures", "sealed-copies.json")
ARTIFACTS = os.path.join(ROOT, ".ci", "artifacts")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SECUREPUSH = os.environ.get("SECUREPUSH_BIN", os.path.join(ROOT, ".build", "debug", "securepush"))

# Playwright's default is 30 s per action; a healthy step here takes well under a second.
ACTION_TIMEOUT_MS = 15_000
T0 = time.monotonic()


def log(*parts):
    print(f"[{time.monotonic() - T0:7.2f}s]", *parts, file=sys.stderr, flush=True)


def free_port() -> int:
    """A port nobody listens on right now (bound to 0 and released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, timeout, what, interval=0.1):
    """Polls `predicate` until it returns a truthy value, which it returns; fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


# --- Chromium ------------------------------------------------------------------------------------------------------

def start_browser():
    """Playwright with Debian's Chromium (no `playwright install`); returns (playwright, browser)."""
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        args = ["--no-sandbox"]
        if os.environ.get("SECUREPUSH_BROWSER_LOCAL_WEB"):
            # Scripts fulfilled by the test have no address: without this, Chromium treats a worker loaded that way
            # as public and refuses its requests to the loopback services (Local Network Access).
            args.append("--disable-features=LocalNetworkAccessChecks")
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=args, timeout=60_000)
    except BaseException:
        playwright.stop()
        raise
    return playwright, browser


def new_context(browser, origin=None, permissions=True):
    """A fresh profile (its own IndexedDB, service workers, notifications); notifications granted to `origin`."""
    context = browser.new_context()
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    if origin and permissions:
        context.grant_permissions(["notifications"], origin=origin)
    if origin and os.environ.get("SECUREPUSH_BROWSER_LOCAL_WEB"):
        serve_web_from_disk(context, origin)
    return context


CONTENT_TYPES = {".js": "text/javascript; charset=utf-8", ".html": "text/html; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".json": "application/json", ".svg": "image/svg+xml",
                 ".webmanifest": "application/manifest+json", ".png": "image/png"}


def serve_web_from_disk(context, origin):
    """For working on Clients/Web without rebuilding: `/sdk/*` and `/inbox/*` of `origin` come from the files on
    disk (SECUREPUSH_BROWSER_LOCAL_WEB=1; a directory in SECUREPUSH_BROWSER_WEB_OVERRIDE is looked in first). CI never
    sets it: there the tests read what `up` embedded."""
    roots = [d for d in (os.environ.get("SECUREPUSH_BROWSER_WEB_OVERRIDE"), WEB) if d]

    def handler(route):
        path = route.request.url[len(origin):].split("?")[0].split("#")[0]
        if path == "/inbox/config.json":
            return route.fallback()
        if path.endswith("/"):
            path += "index.html"
        for root in roots:
            file = os.path.normpath(os.path.join(root, path.lstrip("/")))
            if file.startswith(root) and os.path.isfile(file):
                with open(file, "rb") as f:
                    body = f.read()
                return route.fulfill(status=200, body=body, headers={
                    "Content-Type": CONTENT_TYPES.get(os.path.splitext(file)[1], "application/octet-stream"),
                    "Service-Worker-Allowed": "/inbox/"})
        return route.fallback()

    context.route(origin + "/sdk/**", handler)
    context.route(origin + "/inbox/**", handler)


def watch_console(page, sink):
    """Collects the page's console messages and errors in `sink` (printed when a test fails)."""
    page.on("console", lambda message: sink.append(f"console.{message.type}: {message.text}"))
    page.on("pageerror", lambda error: sink.append(f"pageerror: {error}"))


# --- a static server for Clients/Web --------------------------------------------------------------------------------

class StaticServer:
    """Serves Clients/Web at / on 127.0.0.1:<ephemeral> (JavaScript as text/javascript), and an empty page at
    /__test__/blank.html for tests that only need an origin to import the SDK from."""

    def __init__(self, directory=WEB):
        class Handler(http.server.SimpleHTTPRequestHandler):
            extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                              ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json"}

            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path.split("?")[0] == "/__test__/blank.html":
                    body = b"<!doctype html><meta charset=utf-8><title>test</title>"
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                super().do_GET()

        self._server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=directory))
        self._server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="static", daemon=True)
        self._thread.start()

    def close(self):
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


# --- securepush up and the CLI --------------------------------------------------------------------------------------

def ensure_cli():
    """Builds the CLI when it is missing (a concurrent build waits on SwiftPM's lock)."""
    if os.access(SECUREPUSH, os.X_OK):
        return
    log("building the CLI: swift build --product securepush")
    subprocess.run(["swift", "build", "--product", "securepush"], cwd=ROOT, check=True, timeout=1800)


def clean_environment():
    """This process's environment without SECUREPUSH_* variables (a developer's shell must not leak in)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("SECUREPUSH_")}


class Stack:
    """`securepush up` on free loopback ports with its own data directory; `stop()` ends it (SIGTERM, then SIGKILL)."""

    def __init__(self, extra_env=None, start_timeout=90):
        ensure_cli()
        self.directory = tempfile.mkdtemp(prefix="securepush-browser-")
        self.data_dir = os.path.join(self.directory, "data")
        self.auth_port, self.store_port, self.dispatch_port = free_port(), free_port(), free_port()
        self.auth_url = f"http://127.0.0.1:{self.auth_port}"
        self.store_url = f"http://127.0.0.1:{self.store_port}"
        self.dispatch_url = f"http://127.0.0.1:{self.dispatch_port}"
        self.origin = self.dispatch_url
        self.inbox_url = f"{self.dispatch_url}/inbox/"
        env = clean_environment()
        env.update({
            "SECUREPUSH_AUTH_PORT": str(self.auth_port),
            "SECUREPUSH_STORE_PORT": str(self.store_port),
            "SECUREPUSH_DISPATCH_PORT": str(self.dispatch_port),
            "SECUREPUSH_HOST": "127.0.0.1",
            "SECUREPUSH_BCRYPT_COST": "10",
            "SECUREPUSH_LOG_LEVEL": "notice",
            # Every caller here (the browser, the CLI, the services' own client tokens) is 127.0.0.1, and a test
            # signs in and refreshes more often in a minute than a person does: the per-address cap stays on, high.
            # (With short access tokens the services' own client tokens are fetched, and their secrets checked with
            # bcrypt, every few seconds: the per-address bcrypt budget is off.)
            "SECUREPUSH_AUTH_RATE_LIMIT": "100000",
            "SECUREPUSH_BCRYPT_CHECKS_PER_ADDRESS": "0",
        })
        env.update(extra_env or {})
        self.env = env
        self.log_path = os.path.join(self.directory, "up.log")
        self._log = open(self.log_path, "wb")
        self._start(start_timeout)

    def _start(self, start_timeout):
        log(f"starting securepush up (dispatch {self.dispatch_url}, data {self.data_dir})")
        self._started_at = len(self.output())
        self.process = subprocess.Popen(
            [SECUREPUSH, "up", "--data-dir", self.data_dir], env=self.env, cwd=self.directory,
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT)
        try:
            wait_until(self._ready, start_timeout, "securepush up's banner and health", interval=0.2)
        except BaseException:
            self.stop()
            raise
        log("securepush up is ready")

    def kill9_and_restart(self, start_timeout=90):
        """Kills `up` with SIGKILL (no shutdown of any kind) and starts it again on the same ports and data."""
        self.process.kill()
        self.process.wait(10)
        log("securepush up killed (SIGKILL)")
        self._start(start_timeout)

    def output(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def _ready(self):
        if self.process.poll() is not None:
            raise AssertionError(f"securepush up exited ({self.process.returncode}) before it was ready:\n"
                                 f"{self.output()[-4000:]}")
        if "Press Ctrl-C to stop." not in self.output()[getattr(self, "_started_at", 0):]:
            return False
        return all(self.cli("health", url, "--quiet", check=False, timeout=15).returncode == 0
                   for url in (self.auth_url, self.store_url, self.dispatch_url))

    def stop(self):
        if self.process.poll() is None:
            # up is in this process group: a timeout that ends the test run ends it too.
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self._log.close()
        if os.environ.get("SECUREPUSH_BROWSER_KEEP"):
            log(f"kept {self.directory}")
        else:
            shutil.rmtree(self.directory, ignore_errors=True)

    def cli_env(self, credentials=None):
        env = clean_environment()
        env.update({
            "SECUREPUSH_AUTH_URL": self.auth_url,
            "SECUREPUSH_STORE_URL": self.store_url,
            "SECUREPUSH_DISPATCH_URL": self.dispatch_url,
            "SECUREPUSH_CREDENTIALS": credentials or os.path.join(self.directory, "credentials.json"),
        })
        return env

    def cli(self, *args, check=True, timeout=60, credentials=None):
        """Runs the CLI against this stack (backend commands find up's development client in its data dir)."""
        command = [SECUREPUSH, *args]
        if args and args[0] in ("send", "status"):
            command += ["--data-dir", self.data_dir]
        result = subprocess.run(command, env=self.cli_env(credentials), cwd=self.directory, capture_output=True,
                                text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        if check and result.returncode != 0:
            raise AssertionError(f"securepush {' '.join(args)} exited {result.returncode}:\n"
                                 f"{result.stdout}\n{result.stderr}")
        return result

    def new_user(self, prefix="web"):
        """Registers a fresh user with the CLI; returns (username, password, userId)."""
        username = f"{prefix}-{uuid.uuid4().hex[:10]}"
        password = f"pw-{uuid.uuid4().hex}"
        out = self.cli("register", "--username", username, "--password", password).stdout
        user_id = out.split("user id", 1)[1].split()[0].strip() if "user id" in out else None
        return username, password, user_id

    def send(self, to, message, *flags):
        """`securepush send` as the app backend; returns the notification id it printed."""
        out = self.cli("send", "--to", to, "--message", message, *flags).stdout
        for line in out.splitlines():
            if line.startswith("notification "):
                return line.split()[1]
        raise AssertionError(f"securepush send printed no notification id:\n{out}")

    def config(self):
        return {"authURL": self.auth_url, "storeURL": self.store_url, "dispatchURL": self.dispatch_url}

    def database_files(self):
        """Every file under the data directory (SQLite databases with their -wal and -shm files, secrets)."""
        for base, _, names in os.walk(self.data_dir):
            for name in names:
                yield os.path.join(base, name)


def rpc(url, method, params=None, token=None, headers=None, timeout=10):
    """One JSON-RPC call over HTTP/1.1; returns the response object (`result` or `error`)."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}).encode()
    request_headers = {"Content-Type": "application/json"}
    if token:
        request_headers["Authorization"] = f"Bearer {token}"
    request_headers.update(headers or {})
    request = urllib.request.Request(url.rstrip("/") + "/rpc", data=body, headers=request_headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        return json.loads(error.read() or b"{}")


# --- the service worker through the DevTools protocol ---------------------------------------------------------------

GENERIC_TITLE = "You have a new secure message"
GENERIC_BODY = "Tap to open"
ALREADY_READ_BODY = "This message was already read"

NOTIFICATIONS_JS = """async (scope) => {
  const registration = await navigator.serviceWorker.getRegistration(scope);
  if (!registration) return null;
  const list = await registration.getNotifications();
  return list.map(n => ({title: n.title, body: n.body, tag: n.tag, data: n.data ?? null}));
}"""

CLOSE_NOTIFICATIONS_JS = """async (scope) => {
  const registration = await navigator.serviceWorker.getRegistration(scope);
  if (!registration) return 0;
  const list = await registration.getNotifications();
  list.forEach(n => n.close());
  return list.length;
}"""


class ServiceWorkerDriver:
    """The page's service worker as the browser's push stack sees it: `deliver(data)` fires a real `push` event
    (`ServiceWorker.deliverPushMessage`), `notifications()` reads `registration.getNotifications()`."""

    def __init__(self, context, page, origin, scope):
        self.context, self.page, self.origin, self.scope = context, page, origin, scope
        self.cdp = context.new_cdp_session(page)
        self.registrations = {}
        self.versions = {}
        self.cdp.on("ServiceWorker.workerRegistrationUpdated",
                    lambda e: [self.registrations.__setitem__(r["registrationId"], r) for r in e["registrations"]])
        self.cdp.on("ServiceWorker.workerVersionUpdated",
                    lambda e: [self.versions.__setitem__(v["versionId"], v) for v in e["versions"]])
        self.cdp.send("ServiceWorker.enable")

    def registration_id(self, timeout=15):
        """The id of the live registration for `scope` with an activated version (events arrive asynchronously)."""
        deadline = time.monotonic() + timeout
        while True:
            live = [r for r in self.registrations.values()
                    if not r.get("isDeleted") and r["scopeURL"] == self.scope]
            for registration in live:
                if any(v.get("registrationId") == registration["registrationId"] and v.get("status") == "activated"
                       for v in self.versions.values()):
                    return registration["registrationId"]
            if time.monotonic() > deadline:
                raise AssertionError(f"no activated service worker registration for {self.scope} within {timeout}s "
                                     f"(registrations: {list(self.registrations.values())})")
            self.page.wait_for_timeout(50)

    def deliver(self, data: str):
        self.cdp.send("ServiceWorker.deliverPushMessage",
                      {"origin": self.origin, "registrationId": self.registration_id(), "data": data})

    def notifications(self):
        return self.page.evaluate(NOTIFICATIONS_JS, self.scope) or []

    def clear_notifications(self, timeout=5):
        self.page.evaluate(CLOSE_NOTIFICATIONS_JS, self.scope)
        deadline = time.monotonic() + timeout
        while self.notifications():
            if time.monotonic() > deadline:
                raise AssertionError(f"notifications still shown after close(): {self.notifications()}")
            self.page.wait_for_timeout(50)

    def wait_for_notification(self, timeout=15, predicate=None):
        """The first notification shown (matching `predicate`), waiting at most `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.notifications()
            matching = [n for n in shown if predicate is None or predicate(n)]
            if matching:
                return matching[0]
            if time.monotonic() > deadline:
                raise AssertionError(f"no notification within {timeout}s (shown: {shown})")
            self.page.wait_for_timeout(100)

    def push_and_read(self, data: str, timeout=15):
        """Clears the shown notifications, delivers `data`, and returns the notification the worker shows."""
        self.clear_notifications()
        self.deliver(data)
        return self.wait_for_notification(timeout)


class BrowserTestCase:
    """Mixin: one Chromium per test class; a failing test prints the console lines it collected."""

    console: list

    @classmethod
    def start_browser(cls):
        cls.playwright, cls.browser = start_browser()
        cls.addClassCleanup(cls._stop_browser)

    @classmethod
    def _stop_browser(cls):
        try:
            cls.browser.close()
        finally:
            cls.playwright.stop()

    def collect_console(self, page):
        if not hasattr(self, "console"):
            self.console = []
            self.addCleanup(self._print_console_on_failure)
        watch_console(page, self.console)

    def _print_console_on_failure(self):
        outcome = getattr(self, "_outcome", None)
        failed = outcome is not None and not outcome.success
        if (failed or os.environ.get("SECUREPUSH_BROWSER_VERBOSE")) and self.console:
            log(f"{self.id()}: browser console:\n  " + "\n  ".join(self.console[-80:]))


class StaticPageTestCase(BrowserTestCase):
    """Mixin: Clients/Web from a `StaticServer` (no services), one browser and context per class, and each test on a
    fresh blank page of that origin (`self.page`)."""

    @classmethod
    def setUpClass(cls):
        cls.server = StaticServer()
        cls.addClassCleanup(cls.server.close)
        cls.start_browser()
        cls.context = new_context(cls.browser)
        cls.addClassCleanup(cls.context.close)

    def setUp(self):
        self.page = self.context.new_page()
        self.addCleanup(self.page.close)
        self.collect_console(self.page)
        self.page.goto(self.server.origin + "/__test__/blank.html")


# --- the SDK's IndexedDB, read from a page of its origin -----------------------------------------------------------

IDB_DUMP_JS = """async (onlyDb) => {
  const describe = (value, depth = 0) => {
    if (depth > 6) return '…';
    if (value instanceof CryptoKey) {
      return {cryptoKey: true, type: value.type, extractable: value.extractable, algorithm: value.algorithm.name,
              usages: value.usages};
    }
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
      const bytes = value instanceof ArrayBuffer ? new Uint8Array(value)
                                                 : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
      return {bytes: bytes.length, head: Array.from(bytes.subarray(0, 4))};
    }
    if (Array.isArray(value)) return value.map((v) => describe(v, depth + 1));
    if (value && typeof value === 'object') {
      const out = {};
      for (const [k, v] of Object.entries(value)) out[k] = describe(v, depth + 1);
      return out;
    }
    return value;
  };
  const request = (r) => new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result);
                                                            r.onerror = () => reject(r.error); });
  const out = {};
  for (const {name} of await indexedDB.databases()) {
    if (onlyDb && name !== onlyDb) continue;
    const db = await request(indexedDB.open(name));
    out[name] = {};
    for (const storeName of db.objectStoreNames) {
      const store = db.transaction(storeName).objectStore(storeName);
      const keys = await request(store.getAllKeys());
      const values = await request(db.transaction(storeName).objectStore(storeName).getAll());
      out[name][storeName] = Object.fromEntries(keys.map((k, i) => [String(k), describe(values[i])]));
    }
    db.close();
  }
  return out;
}"""


def walk(value, path=""):
    """Every (path, leaf) of a dump from IDB_DUMP_JS; CryptoKey and byte descriptions are leaves."""
    if isinstance(value, dict) and not value.get("cryptoKey") and "bytes" not in value:
        for key, child in value.items():
            yield from walk(child, f"{path}/{key}")
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from walk(child, f"{path}[{index}]")
    else:
        yield path, value


def jwt_claims(token):
    import base64

    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


# --- the SDK driven from a page of the inbox's origin ---------------------------------------------------------------

SDK_PAGE_PATH = "/inbox/config.json"

SDK_CALL_JS = """async ([name, method, args]) => {
  try {
    const value = await window[name][method](...args);
    return {ok: true, value: value === undefined ? null : JSON.parse(JSON.stringify(value))};
  } catch (e) {
    return {ok: false, name: e && e.name, code: e && e.code, message: String(e && e.message || e),
            data: e && e.data !== undefined ? JSON.parse(JSON.stringify(e.data)) : null};
  }
}"""


def open_sdk_page(context, stack, db_name=None, name="__sp"):
    """A page of `stack`'s inbox origin with the SDK imported and `window[name] = await SecurePush.create(config)`.
    The page is `/inbox/config.json`: a real document of the origin (with the inbox's CSP), as the browser's
    address-space checks want, without the inbox's own script."""
    page = context.new_page()
    page.goto(stack.origin + SDK_PAGE_PATH)
    config = dict(stack.config())
    if db_name:
        config["dbName"] = db_name
    page.evaluate("""async ([cfg, name]) => {
      const {SecurePush} = await import('/sdk/securepush.js');
      window.SecurePush = SecurePush;
      window[name] = await SecurePush.create(cfg);
    }""", [config, name])
    return page


def sdk(page, method, *args, name="__sp"):
    """`await window.__sp[method](...args)` in the page: {ok, value} or {ok: false, code, message, data}."""
    return page.evaluate(SDK_CALL_JS, [name, method, list(args)])


def must(result, what=""):
    """The value of an `sdk()` call that must succeed."""
    if not result["ok"]:
        raise AssertionError(f"{what or 'SDK call'} failed: {result}")
    return result["value"]

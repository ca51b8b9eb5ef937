"""The Web Push path and the service worker (Clients/Web/inbox/securepush-sw.js) in real Chromium.

`securepush up` runs with Web Push on (a VAPID key made here), short access tokens (SECUREPUSH_ACCESS_TOKEN_TTL=5)
and the push-service mock of pushmock.py allow-listed. A page of the inbox's origin signs in with the SDK, registers
the worker and a `webpush` device whose subscription's endpoint is the mock. Then:

- end to end: `securepush send` → push-dispatch encrypts `{"secureId"}` (RFC 8291) and POSTs it with VAPID to the
  mock → the mock decrypts it → the test hands the plaintext to the worker (`ServiceWorker.deliverPushMessage`) →
  the worker, with the session expired, fetches the sealed copy with its device proof, opens it, and shows it;
- every failure shows the generic notification, and never the id;
- a read-once message pushed twice: "This message was already read" the second time;
- two tabs and the worker needing the session at once after it expired keep it (no refresh token is spent twice);
- enabling again while push-dispatch is unreachable or unavailable keeps the working Web Push device (no downgrade to
  direct, no unregister, no unsubscribe); a rotated subscription is registered again on page load (syncSubscription);
- signing out closes the decrypted notifications the worker showed.
"""

import json
import os
import tempfile
import time
import unittest
import uuid

from cryptography.hazmat.primitives import serialization

import harness
import pushmock

ACCESS_TOKEN_TTL = 5
SW_PATH = "/inbox/securepush-sw.js"

REGISTER_WORKER_JS = """async (path) => {
  const registration = await navigator.serviceWorker.register(path, {scope: '/inbox/', type: 'module'});
  const worker = registration.installing || registration.waiting || registration.active;
  if (worker.state !== 'activated') {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('worker not activated: ' + worker.state)), 15000);
      worker.addEventListener('statechange', () => {
        if (worker.state === 'activated') { clearTimeout(timer); resolve(); }
        if (worker.state === 'redundant') { clearTimeout(timer); reject(new Error('worker redundant')); }
      });
    });
  }
  return registration.scope;
}"""


# A ServiceWorkerRegistration stand-in whose push manager holds `subscription` (headless Chromium has no push service
# to subscribe with); the SDK is given it as `serviceWorker`, as an app passes its own registration.
FAKE_REGISTRATION_JS = """(sub) => {
  window.__unsubscribed = window.__unsubscribed || 0;
  const subscription = {endpoint: sub.endpoint, options: {applicationServerKey: null}, toJSON: () => sub,
                        unsubscribe: async () => { window.__unsubscribed += 1; return true; }};
  window.__fakeRegistration = {
    active: {state: 'activated'},
    pushManager: {
      getSubscription: async () => subscription,
      subscribe: async () => { throw new DOMException('no push service in this test', 'AbortError'); },
    },
  };
}"""

WITH_FAKE_REGISTRATION_JS = """async (method) => {
  try {
    const value = await window.__sp[method]({serviceWorker: window.__fakeRegistration});
    return {ok: true, value: JSON.parse(JSON.stringify(value ?? null))};
  } catch (e) {
    return {ok: false, code: e && e.code, message: String(e && e.message || e)};
  }
}"""


class ServiceWorkerTests(harness.BrowserTestCase, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="securepush-browser-webpush-")
        cls.addClassCleanup(cls.tmp.cleanup)
        vapid_file = os.path.join(cls.tmp.name, "vapid.pem")
        vapid_key = pushmock.write_vapid_key(vapid_file)
        cls.mock = pushmock.MockPushService(vapid_key.public_key(), directory=cls.tmp.name)
        cls.addClassCleanup(cls.mock.close)
        cls.stack = harness.Stack({
            "SECUREPUSH_VAPID_PRIVATE_KEY_FILE": vapid_file,
            "SECUREPUSH_VAPID_SUBJECT": "mailto:test@example.com",
            "SECUREPUSH_WEBPUSH_ALLOWED_HOSTS": "127.0.0.1",
            "SECUREPUSH_WEBPUSH_CA_FILE": cls.mock.ca_file,
            "SECUREPUSH_ACCESS_TOKEN_TTL": str(ACCESS_TOKEN_TTL),
        })
        cls.addClassCleanup(cls.stack.stop)
        cls.vapid_public = pushmock.b64u(vapid_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))
        cls.start_browser()

    def setUp(self):
        self.context = harness.new_context(self.browser, self.stack.origin)
        self.addCleanup(self.context.close)
        self.requests = []
        self.context.on("request", lambda request: self.requests.append(request))

    # --- set-up of one browser with a Web Push device --------------------------------------------------------------

    def web_push_browser(self):
        """A signed-in page with the worker registered and a sealed `webpush` device whose endpoint is the mock."""
        self.username, self.password, self.user_id = self.stack.new_user("push")
        page = harness.open_sdk_page(self.context, self.stack)
        self.collect_console(page)
        harness.must(harness.sdk(page, "signIn", {"username": self.username, "password": self.password}), "signIn")
        page.evaluate(REGISTER_WORKER_JS, SW_PATH)
        self.worker = harness.ServiceWorkerDriver(self.context, page, self.stack.origin, self.stack.inbox_url)
        self.worker.registration_id()
        self.subscription = self.mock.subscribe()
        self.device = harness.must(harness.sdk(page, "registerDevice", {"subscription": self.subscription.to_json()}),
                                   "registerDevice")
        self.assertEqual(self.device["platform"], "webpush", self.device)
        for service_worker in self.context.service_workers:
            service_worker.on("console", lambda m: self.console.append(f"worker console.{m.type}: {m.text}"))
        return page

    def session(self, page):
        dump = page.evaluate(harness.IDB_DUMP_JS, "securepush")
        return dump["securepush"]["records"].get("session")

    def wait_for_expired_session(self, page):
        """Waits until the stored access token has expired (the real expiry, SECUREPUSH_ACCESS_TOKEN_TTL)."""
        exp = harness.jwt_claims(self.session(page)["accessToken"])["exp"]
        wait = exp - time.time() + 1.2
        if wait > 0:
            page.wait_for_timeout(wait * 1000)
        self.assertLess(harness.jwt_claims(self.session(page)["accessToken"])["exp"], time.time(),
                        "the stored access token is still valid")

    def push_from_dispatch(self, notification_id, count=1):
        """The message push-dispatch sent to the mock for `notification_id`, decrypted (checked like a real push
        service checks it), as the string the browser's push event carries."""
        received = self.mock.wait_for(self.subscription.name, count, timeout=30)[count - 1]
        self.assertEqual(received.problems, [])
        data = received.plaintext.decode()
        self.assertEqual(json.loads(data).get("secureId"), notification_id, data)
        self.assertEqual(received.claims["aud"], self.mock.origin)
        self.assertEqual(received.claims["sub"], "mailto:test@example.com")
        return data

    def assert_generic(self, notification, secure_id=None):
        self.assertEqual((notification["title"], notification["body"]), (harness.GENERIC_TITLE, harness.GENERIC_BODY),
                         notification)
        if secure_id:
            self.assertNotIn(secure_id, notification["title"] + notification["body"])

    def worker_requests(self, url_prefix):
        return [r for r in self.requests if r.service_worker is not None and r.url.startswith(url_prefix)]

    # --- tests ----------------------------------------------------------------------------------------------------

    def test_web_push_end_to_end_after_the_session_expired(self):
        page = self.web_push_browser()
        self.assertEqual(harness.rpc(self.stack.dispatch_url, "devices.webPushKey", {}).get("result"),
                         {"vapidPublicKey": self.vapid_public})
        self.wait_for_expired_session(page)
        plaintext = f"Door code {uuid.uuid4().hex[:6]} — valid today"
        before = len(self.requests)
        notification_id = self.stack.send(self.username, plaintext)
        data = self.push_from_dispatch(notification_id)

        notification = self.worker.push_and_read(data)
        self.assertEqual(notification["body"], plaintext, notification)
        self.assertEqual(notification["title"], "Secure message", notification)

        # The worker fetched with its device proof, and neither refreshed nor used the expired token.
        fetches = [r for r in self.requests[before:] if r.service_worker is not None
                   and r.url.startswith(self.stack.store_url) and r.method == "POST"]
        self.assertTrue(fetches, "the worker made no store request")
        headers = fetches[-1].headers
        self.assertIn("securepush-device-proof", headers)
        self.assertNotIn("authorization", headers)
        self.assertEqual(self.worker_requests(self.stack.auth_url), [], "the service worker called auth")

        status = self.stack.cli("status", notification_id).stdout
        self.assertIn("webpush", status)

    def test_every_failure_shows_the_generic_notification_and_never_the_id(self):
        self.web_push_browser()
        # A message of this user (so a working worker would show it), another user's, and one that does not exist.
        mine = self.stack.send(self.username, f"mine {uuid.uuid4()}")
        self.push_from_dispatch(mine)
        someone, _, _ = self.stack.new_user("other")
        theirs = self.stack.send(someone, "not yours")
        missing = str(uuid.uuid4())

        cases = [
            ("not JSON", "definitely not json", None),
            ("JSON without secureId", json.dumps({"hello": "world"}), None),
            ("secureId not a string", json.dumps({"secureId": 42}), None),
            ("a secureId that does not exist", json.dumps({"secureId": missing}), missing),
            ("someone else's notification", json.dumps({"secureId": theirs}), theirs),
        ]
        for name, data, secure_id in cases:
            with self.subTest(name):
                self.assert_generic(self.worker.push_and_read(data), secure_id)

        # The store answering 500, not answering at all, and answering with a tampered copy (routed in the browser).
        store_rpc = self.stack.store_url + "/rpc"
        origin = self.stack.origin
        cors = {"Access-Control-Allow-Origin": origin,
                "Access-Control-Allow-Headers": "Authorization, Content-Type, SecurePush-Device-Proof, traceparent",
                "Access-Control-Allow-Methods": "POST, OPTIONS"}
        seen = []

        def failing(status):
            def handler(route):
                if route.request.method == "OPTIONS":
                    return route.fulfill(status=204, headers=cors)
                seen.append(status)
                route.fulfill(status=status, headers={**cors, "Content-Type": "application/json"},
                              body=json.dumps({"jsonrpc": "2.0", "id": 1,
                                               "error": {"code": -32603, "message": "Internal error"}}))
            return handler

        def unreachable(route):
            seen.append("abort")
            route.abort("connectionrefused")

        def tampered(route):
            if route.request.method == "OPTIONS":
                return route.fallback()
            response = route.fetch()
            answer = response.json()
            sealed = (answer.get("result") or {}).get("sealed")
            if sealed:
                raw = bytearray(pushmock.unb64u(sealed["ciphertext"]))
                raw[0] ^= 1
                sealed["ciphertext"] = pushmock.b64u(bytes(raw))
                seen.append("tampered")
            route.fulfill(response=response, body=json.dumps(answer))

        data = json.dumps({"secureId": mine})
        for name, handler, marker in [("store answers 500", failing(500), 500),
                                      ("store answers 503", failing(503), 503),
                                      ("store unreachable", unreachable, "abort"),
                                      ("tampered sealed copy", tampered, "tampered")]:
            with self.subTest(name):
                self.context.route(store_rpc, handler)
                try:
                    self.assert_generic(self.worker.push_and_read(data), mine)
                    self.assertIn(marker, seen, f"{name}: the worker's store request was not intercepted")
                finally:
                    self.context.unroute(store_rpc, handler)

        # Without interference, the same push shows the message: the failures above were the store's, not ours.
        self.assertTrue(self.worker.push_and_read(data)["body"].startswith("mine "))

    def test_a_revoked_device_gets_the_generic_notification(self):
        page = self.web_push_browser()
        notification_id = self.stack.send(self.username, f"before revocation {uuid.uuid4()}")
        data = self.push_from_dispatch(notification_id)
        token = harness.rpc(self.stack.auth_url, "auth.login",
                            {"username": self.username, "password": self.password})["result"]["accessToken"]
        answer = harness.rpc(self.stack.dispatch_url, "devices.unregister", {"deviceId": self.device["deviceId"]},
                             token=token)
        self.assertIn("result", answer, answer)

        def revoked():
            got = harness.rpc(self.stack.store_url, "store.get",
                              {"notificationId": notification_id, "deviceId": self.device["deviceId"]}, token=token)
            return "error" in got

        harness.wait_until(revoked, 20, "the store to revoke the unregistered device")
        self.wait_for_expired_session(page)  # so the worker presents its (revoked) device proof
        self.assert_generic(self.worker.push_and_read(data), notification_id)

    def test_a_read_once_message_pushed_twice_is_already_read(self):
        page = self.web_push_browser()
        plaintext = f"once {uuid.uuid4()}"
        notification_id = self.stack.send(self.username, plaintext, "--read-once")
        data = self.push_from_dispatch(notification_id)
        self.assertEqual(self.worker.push_and_read(data)["body"], plaintext)
        again = self.worker.push_and_read(data)
        self.assertEqual(again["body"], harness.ALREADY_READ_BODY, again)
        self.assertNotIn(notification_id, again["title"] + again["body"])
        opened = harness.sdk(page, "open", notification_id)
        self.assertEqual((opened["ok"], opened.get("code")), (False, -32010), opened)

    def test_two_tabs_and_the_worker_at_once_after_expiry_keep_the_session(self):
        first = self.web_push_browser()
        second = harness.open_sdk_page(self.context, self.stack)
        self.collect_console(second)
        harness.must(harness.sdk(second, "list"), "list in the second tab")
        notification_id = self.stack.send(self.username, f"while refreshing {uuid.uuid4()}")
        data = self.push_from_dispatch(notification_id)
        self.wait_for_expired_session(first)

        # Both tabs call list() at the same instant (each must refresh), while the worker handles a push.
        start = time.time() * 1000 + 400
        schedule = """(start) => {
          window.__race = new Promise((resolve) => setTimeout(resolve, Math.max(0, start - Date.now())))
            .then(() => window.__sp.list())
            .then((v) => ({ok: true}), (e) => ({ok: false, code: e.code, message: String(e.message)}));
        }"""
        first.evaluate(schedule, start)
        second.evaluate(schedule, start)
        self.worker.clear_notifications()
        self.worker.deliver(data)
        results = [page.evaluate("window.__race") for page in (first, second)]
        self.assertEqual(results, [{"ok": True}, {"ok": True}])
        self.assertTrue(self.worker.wait_for_notification()["body"].startswith("while refreshing"))

        # Afterwards both still work, and once the new token expired too a third tab refreshes with the family alive.
        for page in (first, second):
            harness.must(harness.sdk(page, "list"), "list after the race")
        self.wait_for_expired_session(first)
        third = harness.open_sdk_page(self.context, self.stack)
        harness.must(harness.sdk(third, "list"), "list in a third tab after another expiry")

        spent = [json.loads(r.post_data)["params"]["refreshToken"] for r in self.requests
                 if r.url.startswith(self.stack.auth_url) and r.method == "POST" and r.post_data
                 and json.loads(r.post_data).get("method") == "auth.refresh"]
        self.assertGreaterEqual(len(spent), 2, "no refresh happened")
        self.assertEqual(len(spent), len(set(spent)), "a refresh token was presented twice")
        self.assertEqual(self.worker_requests(self.stack.auth_url), [], "the service worker called auth")

    def stored_device(self, page):
        return page.evaluate(harness.IDB_DUMP_JS, "securepush")["securepush"]["records"].get("device")

    def test_enabling_again_keeps_a_working_web_push_device_through_passing_failures(self):
        page = self.web_push_browser()
        page.evaluate(FAKE_REGISTRATION_JS, self.subscription.to_json())
        device_id = self.device["deviceId"]
        dispatch_rpc = self.stack.dispatch_url + "/rpc"
        failing = {}  # method -> "abort" | JSON-RPC error code

        def interfere(route):
            request = route.request
            method = json.loads(request.post_data or "{}").get("method") if request.method == "POST" else None
            how = failing.get(method)
            if how is None:
                return route.fallback()
            if how == "abort":
                return route.abort("connectionrefused")
            route.fulfill(status=200, headers={"Content-Type": "application/json"},
                          body=json.dumps({"jsonrpc": "2.0", "id": 1,
                                           "error": {"code": how, "message": "Dependency unavailable",
                                                     "data": {"dependency": "auth"}}}))

        self.context.route(dispatch_rpc, interfere)
        self.addCleanup(self.context.unroute, dispatch_rpc, interfere)
        before = len(self.requests)

        # push-dispatch cannot be asked for its VAPID key: the subscription the browser has is registered again.
        failing.update({"devices.webPushKey": "abort"})
        enabled = page.evaluate(WITH_FAKE_REGISTRATION_JS, "enableNotifications")
        self.assertTrue(enabled["ok"], enabled)
        self.assertEqual((enabled["value"]["platform"], enabled["value"]["deviceId"]), ("webpush", device_id), enabled)

        # Nothing answers, or push-dispatch is unavailable (-32050): the call fails, the device stays as it was.
        for name, how in [("unreachable", "abort"), ("-32050", -32050)]:
            with self.subTest(name):
                failing.update({"devices.webPushKey": how, "devices.register": how})
                result = page.evaluate(WITH_FAKE_REGISTRATION_JS, "enableNotifications")
                self.assertFalse(result["ok"], result)
                self.assertEqual(result["code"], "network" if how == "abort" else -32050, result)
                stored = self.stored_device(page)
                self.assertEqual((stored["deviceId"], stored["platform"]), (device_id, "webpush"), stored)
        failing.clear()

        methods = [json.loads(r.post_data).get("method") for r in self.requests[before:]
                   if r.url == dispatch_rpc and r.method == "POST" and r.post_data]
        self.assertNotIn("devices.unregister", methods)
        self.assertEqual(page.evaluate("window.__unsubscribed"), 0, "the push subscription was unsubscribed")
        devices = harness.must(harness.sdk(page, "devices"), "devices")
        self.assertEqual([(d["deviceId"], d["platform"], d["active"]) for d in devices],
                         [(device_id, "webpush", True)], devices)

        # And it still receives: a message sent now reaches its subscription.
        notification_id = self.stack.send(self.username, f"still here {uuid.uuid4()}")
        self.push_from_dispatch(notification_id, count=1)

    def test_a_rotated_subscription_is_registered_again_on_page_load(self):
        page = self.web_push_browser()
        old = self.subscription
        rotated = self.mock.subscribe()
        page.evaluate(FAKE_REGISTRATION_JS, rotated.to_json())
        synced = page.evaluate(WITH_FAKE_REGISTRATION_JS, "syncSubscription")
        self.assertTrue(synced["ok"] and synced["value"]["changed"], synced)
        stored = self.stored_device(page)
        self.assertEqual((stored["platform"], stored["endpoint"]), ("webpush", rotated.to_json()["endpoint"]), stored)
        again = page.evaluate(WITH_FAKE_REGISTRATION_JS, "syncSubscription")
        self.assertEqual(again["value"]["changed"], False, again)
        devices = harness.must(harness.sdk(page, "devices"), "devices")
        self.assertEqual([d["deviceId"] for d in devices], [stored["deviceId"]], devices)
        # Pushes go to the new subscription.
        self.subscription = rotated
        notification_id = self.stack.send(self.username, f"after rotation {uuid.uuid4()}")
        self.push_from_dispatch(notification_id)
        self.assertEqual([r for r in self.mock.received if r.name == old.name], [],
                         "the old subscription was pushed to after the rotation")

    def test_signing_out_closes_the_decrypted_notifications(self):
        page = self.web_push_browser()
        plaintext = f"secret in the tray {uuid.uuid4()}"
        notification_id = self.stack.send(self.username, plaintext)
        data = self.push_from_dispatch(notification_id)
        self.assertEqual(self.worker.push_and_read(data)["body"], plaintext)
        harness.must(harness.sdk(page, "signOut"), "signOut")
        harness.wait_until(lambda: self.worker.notifications() == [], 10,
                           "signOut to close the worker's notifications")


if __name__ == "__main__":
    unittest.main()

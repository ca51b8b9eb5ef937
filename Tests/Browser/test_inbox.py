"""The web inbox `securepush up` serves, end to end in Chromium: a person signs in through the visible form, turns on
notifications for this browser, and a message sent with `securepush send` appears decrypted on the page while no
server component ever holds a readable copy. Also: the device keys the SDK stores are non-extractable, a payload
with markup is shown as text, and a read-once message cannot be opened twice. Two tabs of one browser: only one reads
the direct channel (a Web Lock), the other gets each message through it (a BroadcastChannel) and takes over when the
first stops. A malformed URL hash does not break signing in.

Writes .ci/artifacts/inbox.png (the inbox showing a decrypted message).
"""

import json
import os
import unittest
import uuid

import harness

ENABLE_LABEL = "Receive notifications on this browser"


class InboxEndToEndTests(harness.BrowserTestCase, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stack = harness.Stack()
        cls.addClassCleanup(cls.stack.stop)
        cls.start_browser()

    def setUp(self):
        self.context = harness.new_context(self.browser, self.stack.origin)
        self.addCleanup(self.context.close)
        self.username, self.password, self.user_id = self.stack.new_user()

    def open_inbox(self):
        page = self.context.new_page()
        self.collect_console(page)
        response = page.goto(self.stack.inbox_url)
        self.assertEqual(response.status, 200, f"GET {self.stack.inbox_url}")
        return page

    def sign_in_and_enable(self, page):
        """Signs in through the visible form and turns notifications on; returns the device the SDK stored."""
        page.get_by_label("Username").fill(self.username)
        page.get_by_label("Password").fill(self.password)
        page.get_by_role("button", name="Sign in").click()
        enable = page.get_by_role("button", name=ENABLE_LABEL)
        enable.wait_for(state="visible")
        enable.click()
        device = harness.wait_until(lambda: self.stored_device(page), 20, "the inbox to register this browser")
        return device

    def stored_device(self, page):
        dump = page.evaluate(harness.IDB_DUMP_JS, "securepush")
        record = dump.get("securepush", {}).get("records", {}).get("device")
        return record if isinstance(record, dict) and record.get("deviceId") else None

    def wait_for_message(self, page, notification_id, text, timeout=20):
        """The inbox shows `text` in #message for `notification_id` (arrived on the direct channel, or opened from
        the list)."""
        message = page.locator("#message")
        started = harness.time.monotonic()
        deadline = started + timeout
        clicked = False
        while True:
            if message.count() and message.get_attribute("data-notification-id") == notification_id \
                    and message.text_content() == text:
                return message
            if not clicked and harness.time.monotonic() > started + 8:
                # Not shown by itself (the direct channel) within 8 s: open it from the list, as a person would.
                item = page.locator(f"#notifications [data-notification-id='{notification_id}']")
                if item.count():
                    item.first.click()
                    clicked = True
            if harness.time.monotonic() > deadline:
                raise AssertionError(
                    f"the inbox did not show notification {notification_id} within {timeout}s; #message is "
                    f"{message.get_attribute('data-notification-id') if message.count() else None!r}: "
                    f"{message.text_content() if message.count() else None!r}; #status: "
                    f"{page.locator('#status').text_content() if page.locator('#status').count() else None!r}")
            page.wait_for_timeout(100)

    def test_signed_in_inbox_shows_what_the_cli_sent_while_the_store_keeps_no_readable_copy(self):
        page = self.open_inbox()
        store_answers = []
        page.on("response", lambda r: store_answers.append(r) if r.url.startswith(self.stack.store_url) else None)
        device = self.sign_in_and_enable(page)
        self.assertIs(device.get("sealed", True), True, device)

        plaintext = f"Your one-time code is {uuid.uuid4().hex[:8]} (sent {uuid.uuid4()})"
        notification_id = self.stack.send(self.username, plaintext)
        self.wait_for_message(page, notification_id, plaintext)

        os.makedirs(harness.ARTIFACTS, exist_ok=True)
        path = os.path.join(harness.ARTIFACTS, "inbox.png")
        page.screenshot(path=path, full_page=True)
        harness.log(f"inbox screenshot: {path}")

        # What the store answered the browser carried no plaintext (the page decrypted it).
        bodies = [r.text() for r in store_answers if r.request.method == "POST"]
        self.assertTrue(any(notification_id in b for b in bodies), "the page never fetched from the store")
        self.assertFalse([b for b in bodies if plaintext in b], "the store answered with the plaintext")

        # No readable copy at rest: the plaintext is in no file of the data directory (databases, WAL, journals).
        needle = plaintext.encode()
        for path in self.stack.database_files():
            with open(path, "rb") as f:
                self.assertNotIn(needle, f.read(), f"the plaintext is in {path}")

        # With the user's bearer token and no device proof the store has nothing readable to give.
        login = harness.rpc(self.stack.auth_url, "auth.login", {"username": self.username, "password": self.password})
        token = login["result"]["accessToken"]
        answer = harness.rpc(self.stack.store_url, "store.get", {"notificationId": notification_id}, token=token)
        self.assertEqual(answer.get("error", {}).get("code"), -32602, answer)
        self.assertEqual(answer["error"].get("data", {}).get("field"), "deviceId", answer)
        sealed = harness.rpc(self.stack.store_url, "store.get",
                             {"notificationId": notification_id, "deviceId": device["deviceId"]}, token=token)
        self.assertIn("result", sealed, sealed)
        self.assertNotIn("payload", sealed["result"])
        self.assertNotIn(plaintext, str(sealed))

    def test_device_keys_stored_by_the_sdk_are_non_extractable(self):
        page = self.open_inbox()
        self.sign_in_and_enable(page)
        dump = page.evaluate(harness.IDB_DUMP_JS, None)
        leaves = list(harness.walk(dump))
        keys = [(path, leaf) for path, leaf in leaves if isinstance(leaf, dict) and leaf.get("cryptoKey")]
        private = [(path, leaf) for path, leaf in keys if leaf["type"] == "private"]
        self.assertEqual(sorted(leaf["algorithm"] for _, leaf in private), ["ECDH", "ECDSA"], dump)
        for path, leaf in private:
            self.assertIs(leaf["extractable"], False, f"{path}: {leaf}")
        # Nothing that could be the private key in another form: no PKCS#8 bytes, no JWK `d`.
        for path, leaf in leaves:
            self.assertFalse(path.endswith("/d"), f"a JWK private member is stored at {path}")
            if isinstance(leaf, dict) and "bytes" in leaf:
                self.assertFalse(leaf["head"][:1] == [0x30] and leaf["bytes"] >= 100,
                                 f"DER bytes (a PKCS#8 key?) stored at {path}: {leaf}")
        # And the stored keys refuse export where they live.
        refused = page.evaluate("""async () => {
          const db = await new Promise((ok, no) => { const r = indexedDB.open('securepush');
                                                     r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
          const found = [];
          const visit = (v) => { if (v instanceof CryptoKey) found.push(v);
                                 else if (v && typeof v === 'object') Object.values(v).forEach(visit); };
          for (const name of db.objectStoreNames) {
            const all = await new Promise((ok) => { const r = db.transaction(name).objectStore(name).getAll();
                                                    r.onsuccess = () => ok(r.result); });
            all.forEach(visit);
          }
          db.close();
          const out = [];
          for (const key of found.filter((k) => k.type === 'private')) {
            for (const format of ['pkcs8', 'jwk']) {
              try { await crypto.subtle.exportKey(format, key); out.push(format + ' exported'); }
              catch (e) { out.push(format + ' refused'); }
            }
          }
          return out;
        }""")
        self.assertEqual(refused, ["pkcs8 refused", "jwk refused"] * 2)

    def test_a_payload_with_markup_is_shown_as_text(self):
        page = self.open_inbox()
        self.sign_in_and_enable(page)
        payload = '<img src=x onerror="window.__xss=1">'
        notification_id = self.stack.send(self.username, payload)
        message = self.wait_for_message(page, notification_id, payload)
        self.assertEqual(message.text_content(), payload)
        self.assertEqual(message.locator("img").count(), 0)
        self.assertEqual(page.locator("img[src='x']").count(), 0)
        page.wait_for_timeout(300)  # an injected image's onerror would have run by now
        self.assertEqual(page.evaluate("typeof window.__xss"), "undefined")

    def test_a_read_once_message_opens_once(self):
        page = self.open_inbox()
        self.sign_in_and_enable(page)
        plaintext = f"read me once {uuid.uuid4()}"
        notification_id = self.stack.send(self.username, plaintext, "--read-once")
        self.wait_for_message(page, notification_id, plaintext)
        # A second open, by the SDK in another page of this origin (same session and device), is gone.
        sdk_page = harness.open_sdk_page(self.context, self.stack)
        self.collect_console(sdk_page)
        second = harness.sdk(sdk_page, "open", notification_id)
        self.assertFalse(second["ok"], second)
        self.assertEqual(second["code"], -32010, second)
        self.assertIn("readAt", second["data"] or {}, second)

    LISTEN_JS = """() => {
      window.__got = [];
      window.__states = [];
      window.__listener = window.__sp.listen({
        onNotification: (m) => window.__got.push(m.error ? {id: m.notificationId, error: String(m.error.code)}
                                                         : {id: m.notificationId, payload: m.payload}),
        onState: (s) => window.__states.push(s.state),
      });
    }"""

    def test_one_tab_reads_the_direct_channel_and_passes_messages_to_the_others(self):
        streams = []
        self.context.on("request", lambda r: streams.append(r) if r.url.endswith("/events") else None)
        first = harness.open_sdk_page(self.context, self.stack)
        self.collect_console(first)
        harness.must(harness.sdk(first, "signIn", {"username": self.username, "password": self.password}), "signIn")
        enabled = harness.must(harness.sdk(first, "enableNotifications"), "enableNotifications")
        self.assertEqual(enabled["platform"], "direct", enabled)
        second = harness.open_sdk_page(self.context, self.stack)
        self.collect_console(second)

        first.evaluate(self.LISTEN_JS)
        harness.wait_until(lambda: "connected" in first.evaluate("window.__states"), 15, "the first tab to connect")
        second.evaluate(self.LISTEN_JS)
        harness.wait_until(lambda: "another-tab" in second.evaluate("window.__states"), 10,
                           "the second tab to say it receives through the first")

        plaintext = f"to every tab {uuid.uuid4()}"
        notification_id = self.stack.send(self.username, plaintext)
        expected = [{"id": notification_id, "payload": plaintext}]
        for page in (first, second):
            harness.wait_until(lambda: page.evaluate("window.__got") == expected, 15,
                               f"both tabs to get the message (got {page.evaluate('window.__got')})")
        self.assertEqual(len(streams), 1, [r.url for r in streams])
        self.assertNotIn("connected", second.evaluate("window.__states"))

        # The first tab stops: the second takes the lock and connects itself.
        first.evaluate("window.__listener.stop()")
        harness.wait_until(lambda: "connected" in second.evaluate("window.__states"), 15,
                           "the second tab to take over")
        later = f"after the hand-over {uuid.uuid4()}"
        later_id = self.stack.send(self.username, later)
        harness.wait_until(lambda: {"id": later_id, "payload": later} in second.evaluate("window.__got"), 15,
                           "the second tab to receive on its own")
        self.assertEqual(len(streams), 2)
        self.assertEqual(first.evaluate("window.__got"), expected, "a stopped tab still received")

    def test_a_page_whose_token_is_refused_refreshes_and_opens(self):
        page = harness.open_sdk_page(self.context, self.stack)
        self.collect_console(page)
        harness.must(harness.sdk(page, "signIn", {"username": self.username, "password": self.password}), "signIn")
        harness.must(harness.sdk(page, "enableNotifications"), "enableNotifications")
        refused_token = page.evaluate(harness.IDB_DUMP_JS, "securepush")["securepush"]["records"]["session"]["accessToken"]
        plaintext = f"after a refused token {uuid.uuid4()}"
        notification_id = self.stack.send(self.username, plaintext)
        refused = []
        auth_calls = []
        self.context.on("request", lambda r: auth_calls.append(json.loads(r.post_data).get("method"))
                        if r.url.startswith(self.stack.auth_url) and r.method == "POST" and r.post_data else None)

        def refuse(route):
            request = route.request
            if request.method != "POST":
                return route.fallback()
            headers = request.headers
            # The token the page holds (valid by its clock) is refused, and so is the device proof (a clock far off).
            if headers.get("authorization") == f"Bearer {refused_token}" or "securepush-device-proof" in headers:
                refused.append("proof" if "securepush-device-proof" in headers else "token")
                return route.fulfill(status=200, headers={"Content-Type": "application/json",
                                                          "Access-Control-Allow-Origin": self.stack.origin},
                                     body=json.dumps({"jsonrpc": "2.0", "id": 1,
                                                      "error": {"code": -32001, "message": "Unauthenticated"}}))
            return route.fallback()

        store_rpc = self.stack.store_url + "/rpc"
        self.context.route(store_rpc, refuse)
        self.addCleanup(self.context.unroute, store_rpc, refuse)
        opened = harness.must(harness.sdk(page, "open", notification_id), "open with a refused token")
        self.assertEqual(opened["payload"], plaintext)
        self.assertEqual(sorted(set(refused)), ["proof", "token"], refused)
        self.assertIn("auth.refresh", auth_calls)

    def test_a_malformed_hash_does_not_break_signing_in(self):
        page = self.context.new_page()
        self.collect_console(page)
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(self.stack.inbox_url + "#%E0%A4%A")
        page.get_by_label("Username").fill(self.username)
        page.get_by_label("Password").fill(self.password)
        page.get_by_role("button", name="Sign in").click()
        page.get_by_role("button", name=ENABLE_LABEL).wait_for(state="visible")
        harness.wait_until(lambda: "Signed in as" in (page.locator("#status").text_content() or ""), 10,
                           f"the sign-in confirmation (status: {page.locator('#status').text_content()!r})")
        self.assertEqual(errors, [])


if __name__ == "__main__":
    unittest.main()

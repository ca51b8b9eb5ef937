"""Signed webhooks (issue 30) against `securepush up`, checked by an independent verifier: every request must pass
PyPI's `standardwebhooks` (`webhook_receiver.py`), never SecurePush's own code. The CLI registers the endpoints, a
real direct-channel device (`securepush listen`) receives and fetches, and `up` is killed with SIGKILL mid-attempt.
"""

import datetime
import os
import subprocess
import time
import unittest

import harness
from webhook_receiver import WebhookReceiver


def created(output):
    """(webhookId, secret) from `securepush webhooks create`'s output."""
    lines = dict(line.split(" ", 1) for line in output.splitlines() if line.startswith(("webhook ", "secret ")))
    return lines["webhook"].strip(), lines["secret"].strip()


class WebhooksAgainstUp(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Webhooks may go to this machine's receivers over http:// because 127.0.0.1 is listed (development).
        cls.stack = harness.Stack(extra_env={"SECUREPUSH_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1"})

    @classmethod
    def tearDownClass(cls):
        cls.stack.stop()

    def setUp(self):
        self.receiver = WebhookReceiver([])
        self.addCleanup(self.receiver.close)

    def backend(self, *args, check=True):
        return self.stack.cli(*args, "--data-dir", self.stack.data_dir, check=check)

    def create(self, *events):
        flags = [arg for event in events for arg in ("--event", event)]
        webhook_id, secret = created(self.backend("webhooks", "create", "--url", self.receiver.url, *flags).stdout)
        self.assertTrue(webhook_id.startswith("wh_"))
        self.assertTrue(secret.startswith("whsec_"))
        self.receiver.set_secrets([secret])
        return webhook_id, secret

    def wait_event(self, type, predicate=lambda body: True, timeout=20):
        return self.receiver.wait_for(
            lambda records: next((r for r in records if r["verified_with"] and isinstance(r["body"], dict)
                                  and r["body"]["type"] == type and predicate(r["body"])), None),
            timeout=timeout)

    def test_every_event_after_its_action_verified_by_standardwebhooks(self):
        webhook_id, _ = self.create()
        username, password, _ = self.stack.new_user("hook")
        credentials = os.path.join(self.stack.directory, f"{username}.json")
        self.stack.cli("login", "--username", username, "--password", password, credentials=credentials)
        listen = subprocess.Popen(
            [harness.SECUREPUSH, "listen", "--count", "1", "--credentials", credentials],
            env=self.stack.cli_env(credentials), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: listen.poll() is None and listen.kill())
        # The device is registered and its stream open before the send (it prints its state on stderr).
        harness.wait_until(lambda: self.stack.cli("devices", "list", "--credentials", credentials, check=False)
                           .stdout.count("securepush-cli") >= 1, 20, "the listening device")
        time.sleep(1)
        message = "statement ready 8841-secret"
        sent = self.stack.send(username, message)
        out, err = listen.communicate(timeout=30)
        self.assertIn(message, out, err)

        delivered = self.wait_event("delivery.sent", lambda b: b["data"]["notificationId"] == sent)
        self.assertEqual(delivered["body"]["data"]["platform"], "direct")
        fetched = self.wait_event("notification.fetched", lambda b: b["data"]["notificationId"] == sent)
        self.assertEqual(fetched["body"]["data"]["deviceId"], delivered["body"]["data"]["deviceId"])

        # The device is offline now: of two sends with one collapse id, the first is replaced.
        first = self.stack.send(username, message, "--collapse-id", "statement")
        self.stack.send(username, message, "--collapse-id", "statement")
        self.wait_event("delivery.collapsed", lambda b: b["data"]["notificationId"] == first)

        brief = self.stack.send(username, message, "--ttl", "1")
        self.wait_event("notification.expired", lambda b: b["data"]["notificationId"] == brief)

        due = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=3)
        scheduled = self.stack.send(username, message, "--send-at", due.strftime("%Y-%m-%dT%H:%M:%SZ"))
        self.wait_event("schedule.sent", lambda b: b["data"]["notificationId"] == scheduled)

        out = self.backend("webhooks", "test", webhook_id).stdout
        self.wait_event("webhook.test", lambda b: b["data"]["webhookId"] == webhook_id)
        self.assertIn("queued webhook.test msg_", out)

        records = self.receiver.records()
        self.assertTrue(all(r["verified_with"] == [0] for r in records), records)
        self.assertTrue(all(r["status"] == 204 for r in records), records)
        for record in records:
            self.assertNotIn(message.encode(), record["raw"])
            self.assertEqual(set(record["body"]), {"type", "timestamp", "data"})
        listed = self.backend("webhooks", "list").stdout
        self.assertIn(f"{webhook_id} enabled {self.receiver.url}", listed)

    def test_retries_keep_the_id_and_rotation_signs_with_both_secrets(self):
        webhook_id, old = self.create("delivery.failed")
        self.receiver.fail_next(1, 500)
        self.backend("webhooks", "test", webhook_id)
        attempts = self.receiver.wait_for(lambda records: records if len(records) >= 2 else None, timeout=30)
        self.assertEqual([r["status"] for r in attempts], [500, 204])
        self.assertEqual(attempts[0]["id"], attempts[1]["id"])

        rotated = self.backend("webhooks", "rotate", webhook_id).stdout
        new = next(line.split()[1] for line in rotated.splitlines() if line.startswith("secret "))
        self.assertNotEqual(new, old)
        self.receiver.set_secrets([old, new])
        self.backend("webhooks", "test", webhook_id)
        during = self.receiver.wait_for(lambda records: records[2] if len(records) >= 3 else None)
        # Each secret alone verifies it: both signatures are sent during the overlap.
        self.assertEqual(during["verified_with"], [0, 1])
        self.assertEqual(len(during["signatures"].split(" ")), 2)

        out = self.backend("webhooks", "replay", webhook_id, "--since", "10m").stdout
        self.assertIn("queued 2 event(s)", out)
        again = self.receiver.wait_for(lambda records: records[3:] if len(records) >= 5 else None)
        self.assertEqual(sorted(r["id"] for r in again), sorted({attempts[0]["id"], during["id"]}))

    def test_a_private_address_is_refused(self):
        for url in ("https://10.0.0.7/hook", "https://169.254.169.254/latest", "ftp://127.0.0.1/x"):
            result = self.backend("webhooks", "create", "--url", url, check=False)
            self.assertNotEqual(result.returncode, 0, url)
            self.assertIn("url", result.stderr, url)

    def test_zz_at_least_once_across_kill_9(self):
        webhook_id, _ = self.create("delivery.sent")
        # The first attempt hangs in the receiver; up dies meanwhile; the restarted up sends the event again.
        self.receiver.hang_next(1, 60)
        self.backend("webhooks", "test", webhook_id)
        first = self.receiver.wait_for(lambda records: records[0] if records else None, timeout=20)
        self.stack.kill9_and_restart()
        again = self.receiver.wait_for(
            lambda records: next((r for r in records[1:] if r["status"] == 204), None), timeout=30)
        self.assertEqual(again["id"], first["id"])
        self.assertEqual(again["verified_with"], [0])


if __name__ == "__main__":
    unittest.main()

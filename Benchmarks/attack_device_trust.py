#!/usr/bin/env python3
"""Issue 24's attacks, tried again against a running SecurePush (cleartext, on 127.0.0.1), each a JSON line.

    attack_device_trust.py --auth PORT --store PORT --dispatch PORT --backend-client FILE [--only NAME ...]

FILE is `securepush up`'s <data-dir>/backend-client.json (a client with push:send). The device here is written in
Python with `cryptography`, independently of the Swift SDK: its key, its proofs (ES256 JWS) and its registrations.

  lost-device      a sealed laptop receives a notification; the user unregisters it; its key then fetches with a
                   fresh proof: -32001 "device revoked" (and how long after the unregister that held).
  proof-flood      one address sends 700 fetches with forged proofs as fast as it can: at most
                   SECUREPUSH_STORE_PROOF_RATE_LIMIT (600) are looked at, the rest are -32029 proofsPerAddress; a
                   device at another address still fetches with its proof meanwhile.
  direct-token     another user registers the victim's direct token: a device of their own; the victim's device,
                   its stream of ids and its sealed copies are untouched.
  readonce-token   with the user's access token alone, a read-once sealed copy: -32602 naming the proof header,
                   nothing consumed; the device then fetches it with its proof, once.
  apns-token       (only with --apns-requests FILE: the deployment delivers to apns_standin.py, whose
                   requests.jsonl FILE is) another user registers the victim's APNs token: a pending device, and a
                   challenge pushed to the token; the victim's device and its sends are untouched; five guesses end
                   the pending device; another registration within 30 s pushes nothing (one challenge per token per
                   30 s). A new owner who holds the phone (reads the challenge APNs got) moves it.
"""
import argparse
import base64
import json
import os
import sys
import time
import uuid

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attack_replay import client, register, report, rpc  # noqa: E402


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Device:
    """A sealed device: a P-256 key pair, its id once registered, and proofs signed with it."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.id = None

    @property
    def public_key(self):
        return b64url(self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))

    def proof(self, notification_id, forged=False):
        header = b64url(json.dumps({"typ": "securepush-proof+jwt", "alg": "ES256"}).encode())
        claims = b64url(json.dumps({"nid": notification_id, "did": self.id, "iat": int(time.time()),
                                    "jti": b64url(os.urandom(16))}).encode())
        signer = ec.generate_private_key(ec.SECP256R1()) if forged else self.key
        r, s = decode_dss_signature(signer.sign(f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256())))
        return f"{header}.{claims}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


class Deployment:
    def __init__(self, args):
        self.args = args
        self.http = client()
        backend = json.load(open(args.backend_client))
        result, error = rpc(self.http, args.auth, "auth.clientToken",
                            {"clientId": backend["clientId"], "clientSecret": backend["clientSecret"]})
        if error:
            raise RuntimeError(f"auth.clientToken: {error}")
        self.backend = {"Authorization": "Bearer " + result["accessToken"]}

    def user(self):
        name, password = "trust-" + uuid.uuid4().hex[:8], "trust password 1234"
        register(self.http, self.args.auth, name, password)
        result, error = rpc(self.http, self.args.auth, "auth.login", {"username": name, "password": password})
        if error:
            raise RuntimeError(f"auth.login: {error}")
        return result["userId"], {"Authorization": "Bearer " + result["accessToken"]}

    def register(self, token, device, platform="direct", device_token=None):
        params = {"platform": platform, "publicKey": device.public_key}
        if device_token:
            params["token"] = device_token
        result, error = rpc(self.http, self.args.dispatch, "devices.register", params, token)
        if error:
            raise RuntimeError(f"devices.register: {error}")
        device.id = result["deviceId"]
        return result

    def send(self, user_id, **options):
        result, error = rpc(self.http, self.args.dispatch, "push.send",
                            {"recipientId": user_id, "payload": "attack " + uuid.uuid4().hex, **options}, self.backend)
        if error:
            raise RuntimeError(f"push.send: {error}")
        return result["notificationId"]

    def fetch(self, notification_id, device, http=None, forged=False, token=None):
        headers = dict(token or {})
        headers["SecurePush-Device-Proof"] = device.proof(notification_id, forged=forged)
        return rpc(http or self.http, self.args.store, "store.get",
                   {"notificationId": notification_id, "deviceId": device.id}, headers)


def lost_device(deployment):
    user_id, token = deployment.user()
    laptop = Device()
    deployment.register(token, laptop)
    nid = deployment.send(user_id, sealedOnly=True)
    before, error = deployment.fetch(nid, laptop)
    opened_before = before is not None and "sealed" in before
    _, error = rpc(deployment.http, deployment.args.dispatch, "devices.unregister", {"deviceId": laptop.id}, token)
    unregistered = time.monotonic()
    refused = None
    while time.monotonic() - unregistered < 5:
        result, refused = deployment.fetch(nid, laptop)
        if refused and refused.get("message") == "Unauthenticated: device revoked":
            break
        time.sleep(0.02)
    after = round(time.monotonic() - unregistered, 3)
    return report("lost-device", opened_before and refused is not None and refused.get("code") == -32001
                  and refused.get("message") == "Unauthenticated: device revoked",
                  fetched_before=opened_before, answer_after=refused, refused_after_seconds=after)


def proof_flood(deployment):
    user_id, token = deployment.user()
    phone, victim = Device(), Device()
    deployment.register(token, phone)
    deployment.register(token, victim)
    nid = deployment.send(user_id, sealedOnly=True)
    attacker = client(source="127.0.0.7")
    answers, started = {}, time.monotonic()
    for _ in range(700):
        _, error = deployment.fetch(nid, phone, http=attacker, forged=True)
        key = f"{error.get('code')} {(error.get('data') or {}).get('quota', '')}".strip() if error else "ok"
        answers[key] = answers.get(key, 0) + 1
    seconds = round(time.monotonic() - started, 2)
    result, error = deployment.fetch(nid, victim, http=client(source="127.0.0.8"))
    other_ok = result is not None and "sealed" in result
    return report("proof-flood", answers.get("-32029 proofsPerAddress", 0) >= 90 and answers.get("-32001", 0) <= 600
                  and other_ok, answers=answers, seconds=seconds, other_address_fetched=other_ok)


def direct_token(deployment):
    victim_id, victim_token = deployment.user()
    _, thief_token = deployment.user()
    phone, thiefs = Device(), Device()
    deployment.register(victim_token, phone, device_token="victims-phone")
    nid = deployment.send(victim_id, sealedOnly=True)
    deployment.register(thief_token, thiefs, device_token="victims-phone")
    listed, _ = rpc(deployment.http, deployment.args.dispatch, "devices.list", {}, victim_token)
    still_listed = [d["deviceId"] for d in listed["devices"]] == [phone.id]
    result, error = deployment.fetch(nid, phone)
    opened = result is not None and "sealed" in result
    return report("direct-token", thiefs.id != phone.id and still_listed and opened,
                  thief_got_own_device=thiefs.id != phone.id, victim_still_owns=still_listed, victim_fetched=opened)


def readonce_token(deployment):
    user_id, token = deployment.user()
    phone = Device()
    deployment.register(token, phone)
    nid = deployment.send(user_id, sealedOnly=True, readOnce=True)
    _, refused = rpc(deployment.http, deployment.args.store, "store.get",
                     {"notificationId": nid, "deviceId": phone.id}, token)
    result, _ = deployment.fetch(nid, phone)
    _, gone = deployment.fetch(nid, phone)
    ok = (refused or {}).get("code") == -32602 and (refused.get("data") or {}).get("field") == \
        "SecurePush-Device-Proof" and result is not None and "sealed" in result and (gone or {}).get("code") == -32010
    return report("readonce-token", ok, token_alone=refused, device_fetched=result is not None, then=gone)


def pushed_challenge(requests_file, apns_token, after):
    """The securepushChallenge the APNs stand-in received for `apns_token` after its first `after` requests."""
    for _ in range(100):
        with open(requests_file) as f:
            lines = f.readlines()[after:]
        for line in lines:
            request = json.loads(line)
            if request["token"] == apns_token and "securepushChallenge" in request["body"]:
                return json.loads(request["body"])["securepushChallenge"], request["headers"]
        time.sleep(0.05)
    return None, None


def apns_token(deployment):
    requests_file = deployment.args.apns_requests
    if not requests_file:
        return report("apns-token", True, skipped="no --apns-requests: the deployment has no APNs stand-in")
    victim_id, victim_token = deployment.user()
    thief_id, thief_token = deployment.user()
    new_owner_id, new_owner_token = deployment.user()
    phone, thiefs, new_owners = Device(), Device(), Device()
    token = os.urandom(32).hex()
    deployment.register(victim_token, phone, platform="apns", device_token=token)
    before = sum(1 for _ in open(requests_file))
    pending = deployment.register(thief_token, thiefs, platform="apns", device_token=token)
    challenge, headers = pushed_challenge(requests_file, token, before)
    listed, _ = rpc(deployment.http, deployment.args.dispatch, "devices.list", {}, victim_token)
    victim_keeps = [d["deviceId"] for d in listed["devices"]] == [phone.id]
    sent = rpc(deployment.http, deployment.args.dispatch, "push.send",
               {"recipientId": victim_id, "payload": "still the victim's"}, deployment.backend)[0]
    victim_targeted = [d["deviceId"] for d in sent["deliveries"]] == [phone.id]
    thief_sent = rpc(deployment.http, deployment.args.dispatch, "push.send",
                     {"recipientId": thief_id, "payload": "x"}, deployment.backend)[0]
    guesses = []
    for _ in range(5):
        _, error = rpc(deployment.http, deployment.args.dispatch, "devices.verify",
                       {"deviceId": thiefs.id, "challenge": b64url(os.urandom(16))}, thief_token)
        guesses.append((error or {}).get("code"))
    # Even the right challenge (were it leaked) no longer works: the pending device ended with the fifth guess.
    _, after_guesses = rpc(deployment.http, deployment.args.dispatch, "devices.verify",
                           {"deviceId": thiefs.id, "challenge": challenge or ""}, thief_token)
    # One challenge per token per 30 s, whoever asks: registering again at once pushes nothing.
    before = sum(1 for _ in open(requests_file))
    deployment.register(new_owner_token, new_owners, platform="apns", device_token=token)
    time.sleep(0.5)
    rate_limited = sum(1 for _ in open(requests_file)) == before
    # Whoever holds the phone (here: reads what APNs delivered to it) registers again after 30 s, proves it and gets
    # the device.
    time.sleep(31)
    deployment.register(new_owner_token, new_owners, platform="apns", device_token=token)
    owners_challenge, _ = pushed_challenge(requests_file, token, before)
    moved, move_error = rpc(deployment.http, deployment.args.dispatch, "devices.verify",
                            {"deviceId": new_owners.id, "challenge": owners_challenge or ""}, new_owner_token)
    after, _ = rpc(deployment.http, deployment.args.dispatch, "devices.list", {}, victim_token)
    ok = (pending.get("verification") == "pending" and pending["deviceId"] != phone.id and challenge is not None
          and headers.get("apns-push-type") == "background" and victim_keeps and victim_targeted
          and thief_sent["deliveries"] == [] and guesses == [-32602] * 5
          and (after_guesses or {}).get("code") == -32004 and rate_limited and moved == {"deviceId": new_owners.id}
          and after["devices"] == [])
    return report("apns-token", ok, pending=pending.get("verification"), challenge_pushed=challenge is not None,
                  push_type=(headers or {}).get("apns-push-type"), victim_keeps_device=victim_keeps,
                  victims_send_reaches_it=victim_targeted, thiefs_send_reaches=len(thief_sent["deliveries"]),
                  guesses=guesses, right_challenge_after_five_guesses=(after_guesses or {}).get("code"),
                  second_challenge_within_30s=not rate_limited,
                  holder_moved_it=moved is not None and move_error is None)


ATTACKS = {"lost-device": lost_device, "proof-flood": proof_flood, "direct-token": direct_token,
           "readonce-token": readonce_token, "apns-token": apns_token}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--auth", type=int, required=True)
    parser.add_argument("--store", type=int, required=True)
    parser.add_argument("--dispatch", type=int, required=True)
    parser.add_argument("--backend-client", required=True)
    parser.add_argument("--only", action="append", choices=sorted(ATTACKS))
    parser.add_argument("--apns-requests", help="requests.jsonl of the apns_standin.py the deployment delivers to")
    args = parser.parse_args()
    deployment = Deployment(args)
    results = [ATTACKS[name](deployment) for name in args.only or ATTACKS]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()

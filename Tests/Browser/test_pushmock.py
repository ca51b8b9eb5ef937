"""The push-service mock checks what a real push service checks (no browser, no SecurePush server needed)."""

import json
import os
import ssl
import time
import unittest
import urllib.error
import urllib.request

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

import pushmock
from pushmock import b64u, unb64u

# RFC 8291 Appendix A.
PLAINTEXT = b"When I grow up, I want to be a watermelon"
UA_PRIVATE = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
AUTH_SECRET = "BTBZMqHH6r4Tts7J_aSIgg"
BODY = ("DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A"
        "_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")


def encrypt(plaintext, subscription):
    """push-dispatch's side of RFC 8291 (fresh sender key and salt), for posting to the mock."""
    sender = ec.generate_private_key(ec.SECP256R1())
    salt = os.urandom(16)
    ua_public = subscription.private_key.public_key()
    shared = sender.exchange(ec.ECDH(), ua_public)
    key_info = b"WebPush: info\x00" + pushmock.public_raw(subscription.private_key) + pushmock.public_raw(sender)
    ikm = pushmock.hkdf(subscription.auth_secret, shared, key_info, 32)
    cek = pushmock.hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
    nonce = pushmock.hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
    sealed = pushmock.AESGCM(cek).encrypt(nonce, plaintext + b"\x02", None)
    return salt + (4096).to_bytes(4, "big") + bytes([65]) + pushmock.public_raw(sender) + sealed


def vapid(key, audience, exp=None):
    header = b64u(json.dumps({"typ": "JWT", "alg": "ES256"}).encode())
    claims = b64u(json.dumps({"aud": audience, "exp": int(exp or time.time() + 3600),
                              "sub": "mailto:test@example.com"}).encode())
    r, s = decode_dss_signature(key.sign(f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256())))
    token = f"{header}.{claims}.{b64u(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"
    return f"vapid t={token}, k={b64u(pushmock.public_raw(key))}"


class PushMockTests(unittest.TestCase):
    def test_rfc8291_appendix_a_decrypts_and_a_flipped_bit_does_not(self):
        private = ec.derive_private_key(int.from_bytes(unb64u(UA_PRIVATE), "big"), ec.SECP256R1())
        body = unb64u(BODY)
        self.assertEqual(pushmock.decrypt_aes128gcm(body, private, unb64u(AUTH_SECRET)), PLAINTEXT)
        tampered = bytearray(body)
        tampered[-20] ^= 1
        with self.assertRaises(pushmock.DecryptError):
            pushmock.decrypt_aes128gcm(bytes(tampered), private, unb64u(AUTH_SECRET))

    def test_accepts_a_well_formed_push_and_refuses_a_forged_vapid_token(self):
        server_key = ec.generate_private_key(ec.SECP256R1())
        mock = pushmock.MockPushService(server_key.public_key())
        self.addCleanup(mock.close)
        subscription = mock.subscribe("one")
        context = ssl.create_default_context(cafile=mock.ca_file)

        def post(authorization, body=None):
            request = urllib.request.Request(
                subscription.endpoint, method="POST", data=body or encrypt(b'{"secureId":"x"}', subscription),
                headers={"TTL": "60", "Urgency": "high", "Content-Encoding": "aes128gcm",
                         "Content-Type": "application/octet-stream", "Authorization": authorization})
            try:
                with urllib.request.urlopen(request, context=context, timeout=10) as response:
                    return response.status
            except urllib.error.HTTPError as error:
                return error.code

        self.assertEqual(post(vapid(server_key, mock.origin)), 201)
        self.assertEqual(mock.wait_for("one", 1, timeout=5)[0].plaintext, b'{"secureId":"x"}')
        other = ec.generate_private_key(ec.SECP256R1())
        forged = vapid(other, mock.origin).split(", k=")[0] + ", k=" + b64u(pushmock.public_raw(server_key))
        self.assertEqual(post(forged), 400)
        self.assertEqual(post(vapid(server_key, "https://elsewhere.example")), 400)
        self.assertEqual(post(vapid(server_key, mock.origin, exp=time.time() - 10)), 400)
        self.assertEqual(post(vapid(server_key, mock.origin), body=b"\x00" * 100), 400)
        problems = [r.problems for r in mock.wait_for("one", 5, timeout=5)[1:]]
        self.assertTrue(all(problems), problems)


if __name__ == "__main__":
    unittest.main()

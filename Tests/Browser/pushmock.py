"""A Web Push service (RFC 8030) for the browser tests, in the standard library plus `cryptography`.

push-dispatch POSTs to a subscription's endpoint over TLS. This mock is that endpoint: it answers HTTPS on
127.0.0.1 with a certificate from a CA it generates (push-dispatch trusts it through SECUREPUSH_WEBPUSH_CA_FILE), and
checks each request the way a real push service does (Tests/WebPushProviderTests/MockPushService.swift is the
Swift twin):

- `TTL` present and a non-negative integer, `Urgency` one of RFC 8030's, `Content-Encoding: aes128gcm`,
  `Content-Type: application/octet-stream`;
- `Authorization: vapid t=<JWT>, k=<key>` (RFC 8292): `k` is the application server key, the ES256 JWT verifies
  with it, `aud` is this origin, `exp` is in the future and at most 24 h ahead, `sub` is `mailto:` or `https:`;
- the body decrypts (RFC 8291 / RFC 8188 `aes128gcm`) with the subscription's private key and auth secret, which
  only the mock (playing the browser's push stack) holds.

What decrypted is queued; the test hands it to the page's real service worker through the DevTools protocol
(`ServiceWorker.deliverPushMessage`), as the browser's push service connection would.
"""

import base64
import datetime
import hashlib
import hmac
import http.server
import ipaddress
import json
import os
import ssl
import struct
import tempfile
import threading
import time
import uuid

from cryptography import x509
from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.x509.oid import NameOID


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hkdf(salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    """RFC 5869 HKDF-SHA-256, one expand block (enough for 32 bytes)."""
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    return hmac.new(prk, info + b"\x01", hashlib.sha256).digest()[:length]


def public_raw(key) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


class DecryptError(Exception):
    pass


def decrypt_aes128gcm(body: bytes, private_key, auth_secret: bytes) -> bytes:
    """The browser's side of RFC 8291: one `aes128gcm` record, padding removed."""
    if len(body) < 21:
        raise DecryptError("truncated header")
    salt, record_size, id_len = body[:16], struct.unpack(">I", body[16:20])[0], body[20]
    if record_size < 18:
        raise DecryptError(f"record size {record_size}")
    if id_len != 65 or len(body) < 21 + id_len + 17:
        raise DecryptError(f"key id length {id_len}")
    sender_raw = body[21:21 + id_len]
    record = body[21 + id_len:]
    if len(record) > record_size:
        raise DecryptError("more than one record")
    sender = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender_raw)
    shared = private_key.exchange(ec.ECDH(), sender)
    key_info = b"WebPush: info\x00" + public_raw(private_key) + sender_raw
    ikm = hkdf(auth_secret, shared, key_info, 32)
    cek = hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
    nonce = hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
    try:
        padded = AESGCM(cek).decrypt(nonce, record, None)
    except InvalidTag:
        raise DecryptError("authentication failed") from None
    stripped = padded.rstrip(b"\x00")
    if not stripped or stripped[-1] != 0x02:
        raise DecryptError("bad padding delimiter")
    return stripped[:-1]


def verify_es256_jwt(token: str, public_key) -> dict:
    """Verifies a compact ES256 JWS (raw r‖s signature) and returns its claims; raises on any defect."""
    parts = token.split(".")
    if len(parts) != 3:
        raise ValueError("not a compact JWS")
    header = json.loads(unb64u(parts[0]))
    if header.get("alg") != "ES256":
        raise ValueError(f"alg {header.get('alg')!r}")
    signature = unb64u(parts[2])
    if len(signature) != 64:
        raise ValueError(f"signature of {len(signature)} bytes")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public_key.verify(der, f"{parts[0]}.{parts[1]}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise ValueError("signature does not verify") from None
    return json.loads(unb64u(parts[1]))


class Subscription:
    """What a browser's push stack holds for one subscription: the endpoint and the two secrets."""

    def __init__(self, endpoint: str):
        self.endpoint = endpoint
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth_secret = os.urandom(16)

    def to_json(self) -> dict:
        """`PushSubscription.toJSON()`: what the page hands to `registerDevice({subscription})`."""
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64u(public_raw(self.private_key)), "auth": b64u(self.auth_secret)},
        }


def make_tls_files(directory: str) -> tuple[str, str, str]:
    """A throwaway CA and a server certificate for 127.0.0.1 and localhost; returns (ca, cert, key) paths."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "SecurePush browser tests push-service CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(
            digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
            key_agreement=False, key_cert_sign=True, crl_sign=True, encipher_only=False, decipher_only=False),
            critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = [os.path.join(directory, name) for name in ("push-ca.pem", "push-server.pem", "push-server.key")]
    with open(paths[0], "wb") as f:
        f.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(paths[1], "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(paths[2], "wb") as f:
        f.write(key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    os.chmod(paths[2], 0o600)
    return paths[0], paths[1], paths[2]


def write_vapid_key(path: str):
    """A P-256 VAPID key as PEM (what `openssl ecparam -genkey` writes); returns the private key."""
    key = ec.generate_private_key(ec.SECP256R1())
    with open(path, "wb") as f:
        f.write(key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()))
    os.chmod(path, 0o600)
    return key


class Received:
    """One request, after the checks; `plaintext` is what decrypted (None when it did not)."""

    def __init__(self, name):
        self.name = name
        self.headers = {}
        self.claims = None
        self.plaintext = None
        self.problems = []

    def __repr__(self):
        return f"Received({self.name!r}, plaintext={self.plaintext!r}, problems={self.problems!r})"


class MockPushService:
    """HTTPS on 127.0.0.1:<ephemeral>; `POST /push/<name>` for subscriptions made with `subscribe(name)`."""

    MAX_BODY = 4096

    def __init__(self, application_server_key, directory=None):
        self.application_server_key = application_server_key  # an EllipticCurvePublicKey
        self._tmp = tempfile.TemporaryDirectory(prefix="securepush-pushmock-") if directory is None else None
        self.directory = directory or self._tmp.name
        self.ca_file, cert, key = make_tls_files(self.directory)
        self._context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._context.load_cert_chain(cert, key)
        self._context.set_alpn_protocols(["http/1.1"])
        self._lock = threading.Condition()
        self._subscriptions = {}
        self._scripts = {}
        self.received = []
        mock = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = 10

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                status, headers = mock._handle(self.path, self.headers, body)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def finish_request(self, request, client_address):
                # The handshake happens in the connection's thread, not in the accepting one.
                request.settimeout(10)
                try:
                    tls = mock._context.wrap_socket(request, server_side=True)
                except (ssl.SSLError, OSError):
                    return
                try:
                    self.RequestHandlerClass(tls, client_address, self)
                finally:
                    tls.close()

        self._server = Server(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self.origin = f"https://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="pushmock", daemon=True)
        self._thread.start()

    def close(self):
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
        if self._tmp is not None:
            self._tmp.cleanup()

    def subscribe(self, name=None) -> Subscription:
        name = name or uuid.uuid4().hex
        subscription = Subscription(f"{self.origin}/push/{name}")
        subscription.name = name
        with self._lock:
            self._subscriptions[name] = subscription
        return subscription

    def script(self, name, *statuses):
        """The next requests for `name` get these HTTP statuses, in order; then 201 again."""
        with self._lock:
            self._scripts.setdefault(name, []).extend(statuses)

    def wait_for(self, name, count=1, timeout=20.0) -> list:
        """The first `count` requests for subscription `name`, waiting at most `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                mine = [r for r in self.received if r.name == name]
                if len(mine) >= count:
                    return mine[:count]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"push service mock: {len(mine)} of {count} messages for '{name}' within {timeout}s "
                        f"(all received: {self.received})")
                self._lock.wait(min(left, 0.2))

    def _handle(self, path, headers, body):
        name = path[len("/push/"):] if path.startswith("/push/") else None
        received = Received(name)
        received.headers = {k.lower(): v for k, v in headers.items()}
        with self._lock:
            subscription = self._subscriptions.get(name)
        try:
            if subscription is None:
                received.problems.append(f"unknown subscription path {path!r}")
                return 404, {}
            self._check_headers(received)
            self._check_vapid(headers.get("Authorization"), received)
            if len(body) > self.MAX_BODY:
                received.problems.append(f"body of {len(body)} bytes is over {self.MAX_BODY}")
                return 413, {}
            try:
                received.plaintext = decrypt_aes128gcm(body, subscription.private_key, subscription.auth_secret)
            except (DecryptError, ValueError) as error:
                received.problems.append(f"body does not decrypt: {error}")
            if received.problems:
                return 400, {}
            with self._lock:
                scripted = self._scripts.get(name) or []
                status = scripted.pop(0) if scripted else None
            if status is not None:
                return status, {}
            return 201, {"Location": f"{self.origin}/message/{uuid.uuid4()}"}
        finally:
            with self._lock:
                self.received.append(received)
                self._lock.notify_all()

    @staticmethod
    def _check_headers(received):
        ttl = received.headers.get("ttl")
        if ttl is None or not ttl.isdigit():
            received.problems.append(f"TTL missing or not a non-negative integer: {ttl!r}")
        urgency = received.headers.get("urgency")
        if urgency is not None and urgency not in ("very-low", "low", "normal", "high"):
            received.problems.append(f"Urgency {urgency!r} is not an RFC 8030 value")
        if received.headers.get("content-encoding") != "aes128gcm":
            received.problems.append(f"Content-Encoding is {received.headers.get('content-encoding')!r}")
        if received.headers.get("content-type") != "application/octet-stream":
            received.problems.append(f"Content-Type is {received.headers.get('content-type')!r}")

    def _check_vapid(self, authorization, received):
        if not authorization or not authorization.startswith("vapid "):
            received.problems.append(f"Authorization is not vapid: {authorization!r}")
            return
        parameters = {}
        for part in authorization[len("vapid "):].split(","):
            key, _, value = part.strip().partition("=")
            parameters[key] = value
        token, key = parameters.get("t"), parameters.get("k")
        if not token or not key:
            received.problems.append(f"Authorization lacks t= or k=: {authorization!r}")
            return
        expected = b64u(self.application_server_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))
        if key != expected:
            received.problems.append("k= is not the application server key")
            return
        try:
            claims = verify_es256_jwt(token, ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64u(key)))
        except ValueError as error:
            received.problems.append(f"VAPID JWT does not verify: {error}")
            return
        received.claims = claims
        now = time.time()
        if claims.get("aud") != self.origin:
            received.problems.append(f"aud {claims.get('aud')!r} is not {self.origin}")
        exp = claims.get("exp")
        if not isinstance(exp, (int, float)) or exp <= now:
            received.problems.append(f"exp {exp!r} is not in the future")
        elif exp > now + 86400:
            received.problems.append("exp is more than 24 hours ahead")
        sub = claims.get("sub") or ""
        if not (sub.startswith("mailto:") or sub.startswith("https:")):
            received.problems.append(f"sub {sub!r} is not mailto: or https:")

#!/usr/bin/env python3
"""An APNs stand-in for trying SecurePush's APNs path by hand: HTTP/2 over TLS on 127.0.0.1, as Apple's provider API.

    apns_standin.py --dir DIR [--port PORT]

Writes into DIR a CA certificate (ca.pem), a P-256 token-signing key (AuthKey.p8), and prints the variables that
point `securepush up` at it:

    SECUREPUSH_APNS_URL=https://127.0.0.1:PORT  SECUREPUSH_APNS_CA_FILE=DIR/ca.pem  SECUREPUSH_APNS_KEY_FILE=…

Every `POST /3/device/<token>` is answered `200` with an `apns-id`, and recorded as one JSON line in
DIR/requests.jsonl: `{"token", "headers", "body"}` (the body as text). Runs until interrupted. Needs Python's `h2`
and `cryptography` (`pip install h2 cryptography`).
"""
import argparse
import asyncio
import datetime
import ipaddress
import json
import os
import ssl
import sys
import uuid

import h2.config
import h2.connection
import h2.events
import h2.exceptions
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def write_pki(directory):
    """A CA, a server certificate for 127.0.0.1 signed by it, and an APNs token key; returns the file paths."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "APNs stand-in CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    server = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    pkcs8 = serialization.PrivateFormat.PKCS8
    paths = {name: os.path.join(directory, name) for name in ["ca.pem", "server.pem", "server.key", "AuthKey.p8"]}
    with open(paths["ca.pem"], "wb") as f:
        f.write(ca.public_bytes(pem))
    with open(paths["server.pem"], "wb") as f:
        f.write(server.public_bytes(pem))
    with open(paths["server.key"], "wb") as f:
        f.write(key.private_bytes(pem, pkcs8, serialization.NoEncryption()))
    with open(paths["AuthKey.p8"], "wb") as f:
        f.write(ec.generate_private_key(ec.SECP256R1()).private_bytes(pem, pkcs8, serialization.NoEncryption()))
    return paths


class Connection:
    """One HTTP/2 connection from push-dispatch: every request is recorded and answered 200."""

    def __init__(self, reader, writer, log):
        self.reader, self.writer, self.log = reader, writer, log
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.streams = {}

    async def run(self):
        self.h2.initiate_connection()
        self.writer.write(self.h2.data_to_send())
        while data := await self.reader.read(65536):
            for event in self.h2.receive_data(data):
                if isinstance(event, h2.events.RequestReceived):
                    self.streams[event.stream_id] = (dict(event.headers), bytearray())
                elif isinstance(event, h2.events.DataReceived):
                    self.streams[event.stream_id][1].extend(event.data)
                    self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    self.answer(event.stream_id)
            self.writer.write(self.h2.data_to_send())
            await self.writer.drain()

    def answer(self, stream_id):
        headers, body = self.streams.pop(stream_id)
        path = headers.get(":path", "")
        token = path.rsplit("/", 1)[-1] if path.startswith("/3/device/") else None
        record = {"token": token, "headers": {k: v for k, v in headers.items() if k != "authorization"},
                  "body": body.decode("utf-8", "replace")}
        self.log.write(json.dumps(record) + "\n")
        self.log.flush()
        apns_id = headers.get("apns-id") or str(uuid.uuid4())
        status = "200" if token else "404"
        self.h2.send_headers(stream_id, [(":status", status), ("apns-id", apns_id)], end_stream=True)


async def serve(args):
    os.makedirs(args.dir, exist_ok=True)
    paths = write_pki(args.dir)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(paths["server.pem"], paths["server.key"])
    context.set_alpn_protocols(["h2"])
    log = open(os.path.join(args.dir, "requests.jsonl"), "a")

    async def handle(reader, writer):
        try:
            await Connection(reader, writer, log).run()
        except (ConnectionError, ssl.SSLError, h2.exceptions.ProtocolError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", args.port, ssl=context)
    port = server.sockets[0].getsockname()[1]
    print(f"SECUREPUSH_APNS_URL=https://127.0.0.1:{port}", flush=True)
    print(f"SECUREPUSH_APNS_CA_FILE={paths['ca.pem']}", flush=True)
    print(f"SECUREPUSH_APNS_KEY_FILE={paths['AuthKey.p8']}", flush=True)
    print("SECUREPUSH_APNS_KEY_ID=STANDIN123 SECUREPUSH_APNS_TEAM_ID=TEAM123456 "
          "SECUREPUSH_APNS_TOPIC=com.example.standin", flush=True)
    async with server:
        await server.serve_forever()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", required=True, help="where the CA, the key and requests.jsonl go")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free one)")
    try:
        asyncio.run(serve(parser.parse_args()))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()

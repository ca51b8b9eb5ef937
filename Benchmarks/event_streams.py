#!/usr/bin/env python3
"""Holds many direct-channel event streams, one HTTP/2 connection each (Python standard library only).

Started by bench.py's `devices` mode, several at once (each process stays far below the open-file limit):

    event_streams.py HOST PORT TOKEN_FILE DEVICE_IDS_FILE [--connect-concurrency N] [--timeout S] [--literal-headers]
                     [--pad-bytes N]

For every device id in DEVICE_IDS_FILE (one per line) it opens a cleartext HTTP/2 connection (prior knowledge,
1 GiB windows: the server never waits for a WINDOW_UPDATE) and `GET /devices/{id}/events` with the bearer token,
`:authority`, `accept` and `authorization` indexed in the server's HPACK table (`--literal-headers`: not indexed).
Protocol on stdout, one JSON object per line:
  {"ready": n, "failed": m, "seconds": s}     once every stream has its response headers (status 200) or failed
  {"events": [t, ...], "missing": k}          the CLOCK_MONOTONIC time (seconds, shared by every process on the
                                              host) each stream received its first `push.notify` event, once all
                                              have one, on "report" from stdin, or at --timeout
Stdin: "report" asks for the events line now; "quit" (or end of input) closes every connection and exits.
The client does no JSON or SSE parsing beyond finding `event: push.notify` in a DATA frame: it stays cheap.
"""

import argparse
import asyncio
import json
import os
import struct
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from h2c import (  # noqa: E402
    ACK, BIG_WINDOW, DATA, END_HEADERS, END_STREAM, GOAWAY, HEADERS, PING, PREFACE, RST_STREAM, SETTINGS,
    WINDOW_UPDATE, _frame, _hpack_indexed_literal, _hpack_literal)

MARKER = b"event: push.notify"


class EventStream(asyncio.Protocol):
    """One connection holding one event stream (stream id 1)."""

    def __init__(self, owner, request):
        self.owner, self.request = owner, request
        self.buffer = bytearray()
        self.status_seen = asyncio.get_running_loop().create_future()
        self.event_at = None
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport
        settings = struct.pack(">HI", 0x2, 0) + struct.pack(">HI", 0x4, BIG_WINDOW)
        transport.write(PREFACE + _frame(SETTINGS, 0, 0, settings)
                        + _frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", BIG_WINDOW - 65535)) + self.request)

    def data_received(self, data):
        self.buffer += data
        while len(self.buffer) >= 9:
            length = int.from_bytes(self.buffer[0:3], "big")
            if len(self.buffer) < 9 + length:
                return
            ftype, flags = self.buffer[3], self.buffer[4]
            payload = bytes(self.buffer[9:9 + length])
            del self.buffer[:9 + length]
            if ftype == SETTINGS and not flags & ACK:
                self.transport.write(_frame(SETTINGS, ACK, 0))
            elif ftype == PING and not flags & ACK:
                self.transport.write(_frame(PING, ACK, 0, payload))
            elif ftype == HEADERS and not self.status_seen.done():
                # `:status: 200` is static-table index 8 (0x88); anything else counts as a refusal
                self.status_seen.set_result(payload[:1] == b"\x88" and not flags & END_STREAM)
            elif ftype == DATA:
                if self.event_at is None and MARKER in payload:
                    self.event_at = time.monotonic()
                    self.owner.event_received()
            elif ftype in (RST_STREAM, GOAWAY):
                self.fail()

    def fail(self):
        if not self.status_seen.done():
            self.status_seen.set_result(False)

    def connection_lost(self, exc):
        self.fail()


def request_block(host, port, path, token, indexing=True, pad_bytes=0):
    """The event stream's HEADERS. With `indexing`, `:authority`, `accept` and `authorization` go into the server's HPACK
    table (a client indexing all it may: nghttp2 and Firefox never index `authorization`); without, every field is a
    literal the server keeps nothing of. `pad_bytes` adds an indexed `x-pad` field that long: the table of a
    long-lived connection whose client indexed a varying field for hours."""
    ix = _hpack_indexed_literal if indexing else _hpack_literal
    block = (_hpack_literal(":method", "GET") + _hpack_literal(":scheme", "http")
             + _hpack_literal(":path", path) + ix(":authority", f"{host}:{port}")
             + ix("accept", "text/event-stream")
             + ix("authorization", f"Bearer {token}"))
    if pad_bytes:
        block += ix("x-pad", "p" * pad_bytes)
    return _frame(HEADERS, END_HEADERS | END_STREAM, 1, block)


class Client:
    def __init__(self, args, device_ids, token):
        self.args, self.device_ids, self.token = args, device_ids, token
        self.streams = []
        self.all_events = asyncio.Event()
        self.received = 0

    def event_received(self):
        self.received += 1
        if self.received == len(self.streams):
            self.all_events.set()

    async def open_one(self, device_id, gate):
        loop = asyncio.get_running_loop()
        async with gate:
            request = request_block(self.args.host, self.args.port, f"/devices/{device_id}/events", self.token,
                                    indexing=not self.args.literal_headers, pad_bytes=self.args.pad_bytes)
            try:
                _, stream = await asyncio.wait_for(loop.create_connection(
                    lambda: EventStream(self, request), self.args.host, self.args.port), 30)
                ok = await asyncio.wait_for(stream.status_seen, 30)
            except (OSError, asyncio.TimeoutError):
                return False
        if ok:
            self.streams.append(stream)
        elif stream.transport:
            stream.transport.close()
        return ok

    def emit(self, doc):
        sys.stdout.write(json.dumps(doc) + "\n")
        sys.stdout.flush()

    async def run(self):
        started = time.monotonic()
        gate = asyncio.Semaphore(self.args.connect_concurrency)
        results = await asyncio.gather(*(self.open_one(d, gate) for d in self.device_ids))
        failed = results.count(False)
        self.emit({"ready": len(self.streams), "failed": failed, "seconds": round(time.monotonic() - started, 2)})
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        reported = False
        deadline = started + self.args.timeout
        while True:
            line_task = asyncio.ensure_future(reader.readline())
            events_task = asyncio.ensure_future(self.all_events.wait())
            done, _ = await asyncio.wait({line_task, events_task}, timeout=max(0.1, deadline - time.monotonic()),
                                         return_when=asyncio.FIRST_COMPLETED)
            command = None
            if line_task in done:
                command = line_task.result().decode().strip() or "quit"
            else:
                line_task.cancel()
            events_task.cancel()
            if not reported and (events_task in done or command == "report" or time.monotonic() >= deadline):
                times = [s.event_at for s in self.streams if s.event_at is not None]
                self.emit({"events": times, "missing": len(self.streams) - len(times)})
                reported = True
                self.all_events.clear()
                self.received = -1 << 30  # report once
            if command == "quit" or time.monotonic() >= deadline:
                break
        for stream in self.streams:
            stream.transport.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("token_file")
    ap.add_argument("device_ids_file")
    ap.add_argument("--connect-concurrency", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=900, help="seconds before the process gives up and exits")
    ap.add_argument("--literal-headers", action="store_true",
                    help="send the request's fields without indexing (issue 33's rounds before the sixteenth)")
    ap.add_argument("--pad-bytes", type=int, default=0, help="add an x-pad field this long to the request")
    args = ap.parse_args()
    with open(args.token_file) as f:
        token = f.read().strip()
    with open(args.device_ids_file) as f:
        device_ids = [line.strip() for line in f if line.strip()]
    asyncio.run(Client(args, device_ids, token).run())


if __name__ == "__main__":
    main()

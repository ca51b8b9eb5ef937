"""A minimal HTTP/2 client over cleartext TCP (prior knowledge), Python standard library only.

Just enough for the benchmarks: POST small JSON bodies on many concurrent streams of one connection and collect
each response's status and body. Requests are sent with HPACK literals (no Huffman, no indexing: fine for
request/response benchmarks; event_streams.py indexes, to hold what indexing clients leave in the server); responses'
header blocks are only inspected for the common `:status: 200` encoding (static-table index 8), so `status` is
200 or None ("something else") — callers check the JSON-RPC body anyway. Flow control: the client announces a
1 GiB stream and connection window up front and never sends more than one frame of body per request.

Why not curl --parallel: curl 7.88.1 (Debian 12) fails multiplexed h2c transfers with "Error in the HTTP2
framing layer"; why not h2load: it can only send one fixed body, and auth.refresh needs a new token each time.
"""

import asyncio
import struct

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY_FLAG = 0x1, 0x1, 0x4, 0x8, 0x20
BIG_WINDOW = 1 << 30


class H2Error(Exception):
    pass


def _frame(ftype, flags, stream_id, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", stream_id) + payload


def _hpack_int(value, prefix_bits, first_byte=0):
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first_byte | value])
    out = bytearray([first_byte | limit])
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _hpack_literal(name, value):
    # Literal Header Field without Indexing, new name (RFC 7541 6.2.2), no Huffman coding.
    n, v = name.encode(), value.encode()
    return b"\x00" + _hpack_int(len(n), 7) + n + _hpack_int(len(v), 7) + v


# Static-table indexes (RFC 7541 Appendix A) of the names event_streams.py indexes.
STATIC_NAMES = {":authority": 1, "accept": 19, "authorization": 23}


def _hpack_indexed_literal(name, value):
    # Literal Header Field with Incremental Indexing (RFC 7541 6.2.1), no Huffman coding: the decoder adds the field to
    # its dynamic table. A name in the static table is sent as its index, as encoders do.
    v = value.encode()
    if name in STATIC_NAMES:
        return _hpack_int(STATIC_NAMES[name], 6, 0x40) + _hpack_int(len(v), 7) + v
    n = name.encode()
    return b"\x40" + _hpack_int(len(n), 7) + n + _hpack_int(len(v), 7) + v


class H2Connection:
    def __init__(self, host, port):
        self.host, self.port = host, port
        self.next_stream = 1
        self.pending = {}  # stream id -> [future, status, body chunks]
        self.reader_task = None
        self.max_frame = 16384
        self.closed_error = None

    async def connect(self, timeout=10):
        self.reader, self.writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), timeout)
        settings = struct.pack(">HI", 0x2, 0) + struct.pack(">HI", 0x4, BIG_WINDOW)  # no push, big stream window
        self.writer.write(PREFACE + _frame(SETTINGS, 0, 0, settings)
                          + _frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", BIG_WINDOW - 65535)))
        await self.writer.drain()
        self.reader_task = asyncio.ensure_future(self._read_loop())

    async def close(self):
        if self.reader_task:
            self.reader_task.cancel()
            try:
                await self.reader_task
            except (asyncio.CancelledError, Exception):
                pass
        try:
            self.writer.write(_frame(GOAWAY, 0, 0, struct.pack(">II", 0, 0)))
            self.writer.close()
            await self.writer.wait_closed()
        except Exception:
            pass

    async def post(self, path, body, headers=(), timeout=60):
        """POSTs `body` (bytes) and returns (status: 200 or None, response body bytes)."""
        if self.closed_error:
            raise self.closed_error
        if len(body) > self.max_frame:
            raise H2Error("body larger than one frame")
        sid = self.next_stream
        self.next_stream += 2
        block = (_hpack_literal(":method", "POST") + _hpack_literal(":scheme", "http")
                 + _hpack_literal(":path", path) + _hpack_literal(":authority", f"{self.host}:{self.port}")
                 + _hpack_literal("content-type", "application/json")
                 + _hpack_literal("content-length", str(len(body))))
        for name, value in headers:
            block += _hpack_literal(name.lower(), value)
        fut = asyncio.get_running_loop().create_future()
        self.pending[sid] = [fut, None, []]
        self.writer.write(_frame(HEADERS, END_HEADERS, sid, block) + _frame(DATA, END_STREAM, sid, body))
        await self.writer.drain()
        return await asyncio.wait_for(fut, timeout)

    def _finish(self, sid):
        entry = self.pending.pop(sid, None)
        if entry and not entry[0].done():
            entry[0].set_result((entry[1], b"".join(entry[2])))

    def _fail_all(self, exc):
        self.closed_error = exc
        for fut, _, _ in self.pending.values():
            if not fut.done():
                fut.set_exception(exc)
        self.pending.clear()

    async def _read_loop(self):
        try:
            while True:
                head = await self.reader.readexactly(9)
                length = int.from_bytes(head[0:3], "big")
                ftype, flags = head[3], head[4]
                sid = int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
                payload = await self.reader.readexactly(length) if length else b""
                if ftype == SETTINGS:
                    if not flags & ACK:
                        for i in range(0, len(payload) - 5, 6):
                            ident, value = struct.unpack(">HI", payload[i:i + 6])
                            if ident == 0x5:
                                self.max_frame = value
                        self.writer.write(_frame(SETTINGS, ACK, 0))
                elif ftype == PING:
                    if not flags & ACK:
                        self.writer.write(_frame(PING, ACK, 0, payload))
                elif ftype == GOAWAY:
                    last = int.from_bytes(payload[0:4], "big") & 0x7FFFFFFF
                    code = int.from_bytes(payload[4:8], "big")
                    raise H2Error(f"GOAWAY (error {code}, last stream {last}): {payload[8:200]!r}")
                elif ftype in (HEADERS, CONTINUATION, DATA):
                    entry = self.pending.get(sid)
                    data = payload
                    if ftype in (HEADERS, DATA) and flags & PADDED:
                        pad = data[0]
                        data = data[1:len(data) - pad]
                    if ftype == HEADERS and flags & PRIORITY_FLAG:
                        data = data[5:]
                    if entry is not None:
                        if ftype == HEADERS and entry[1] is None and not entry[2]:
                            entry[1] = 200 if data[:1] == b"\x88" else None
                        elif ftype == DATA:
                            entry[2].append(data)
                    if flags & END_STREAM:
                        self._finish(sid)
                elif ftype == RST_STREAM:
                    entry = self.pending.pop(sid, None)
                    if entry and not entry[0].done():
                        code = int.from_bytes(payload[0:4], "big")
                        entry[0].set_exception(H2Error(f"stream {sid} reset (error {code})"))
                # PRIORITY, WINDOW_UPDATE, PUSH_PROMISE (disabled): nothing to do
        except asyncio.CancelledError:
            raise
        except (asyncio.IncompleteReadError, ConnectionError, H2Error) as exc:
            self._fail_all(exc if isinstance(exc, H2Error) else H2Error(f"connection closed: {exc}"))

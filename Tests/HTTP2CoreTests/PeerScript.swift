/// The Python peer the tests drive: an `h2` client for concurrency, flow control, resets and GOAWAY, and a raw
/// socket that sends hostile frame sequences. Each mode prints one JSON object.
let peerScript = #"""
    import json, socket, struct, sys, time
    import h2.config, h2.connection, h2.events
    from hpack import Decoder

    mode, port = sys.argv[1], int(sys.argv[2])
    PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

    def frame(kind, flags, stream, payload=b""):
        return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload

    def get_block(path=b"/hello"):
        # :method GET, :scheme http (static table), :path and :authority as literals without indexing
        return b"\x82\x86\x04" + bytes([len(path)]) + path + b"\x01\x09localhost"

    def literal_length(n):
        """An HPACK string length (7-bit prefix integer, no Huffman)."""
        if n < 127:
            return bytes([n])
        out, n = [127], n - 127
        while n >= 128:
            out.append(n & 0x7F | 0x80)
            n >>= 7
        return bytes(out + [n])

    def read_frames(sock, seconds):
        """Frames until the peer closes or `seconds` pass: (frames, closed)."""
        sock.settimeout(0.2)
        data, deadline, closed = b"", time.time() + seconds, False
        while time.time() < deadline:
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            data += chunk
        frames = []
        while len(data) >= 9:
            length = int.from_bytes(data[:3], "big")
            if len(data) < 9 + length:
                break
            frames.append((data[3], data[4], int.from_bytes(data[5:9], "big") & 0x7FFFFFFF, data[9:9 + length]))
            data = data[9 + length:]
        return frames, closed

    def summary(frames, closed):
        out = {"closed": closed, "statuses": {}, "resets": [], "goaway": None, "goaway_last_stream": None, "bodies": {}}
        decoder = Decoder()
        for kind, flags, stream, payload in frames:
            if kind == 1:
                headers = dict((k.decode() if isinstance(k, bytes) else k, v) for k, v in decoder.decode(payload, raw=True))
                out["statuses"][str(stream)] = int(headers[":status"])
            elif kind == 3:
                out["resets"].append([stream, struct.unpack(">I", payload[:4])[0]])
            elif kind == 0:
                out["bodies"][str(stream)] = out["bodies"].get(str(stream), "") + payload.decode(errors="replace")
            elif kind == 7:
                out["goaway_last_stream"] = struct.unpack(">I", payload[:4])[0] & 0x7FFFFFFF
                out["goaway"] = struct.unpack(">I", payload[4:8])[0]
        return out

    def raw(payload, seconds=2.0):
        sock = socket.create_connection(("127.0.0.1", port))
        try:
            sock.sendall(payload)
        except OSError:
            pass
        return summary(*read_frames(sock, seconds))

    def client():
        sock = socket.create_connection(("127.0.0.1", port))
        conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
        return sock, conn

    def request(conn, path, method="GET"):
        stream = conn.get_next_available_stream_id()
        conn.send_headers(stream, [(":method", method), (":path", path), (":scheme", "http"),
                                   (":authority", "localhost")], end_stream=True)
        return stream

    def pump(sock, conn, until, seconds=20):
        """Reads events until `until(state)` holds; state: statuses, bodies, ended streams, goaway."""
        state = {"status": {}, "body": {}, "ended": set(), "goaway": None, "reset": set()}
        deadline = time.time() + seconds
        sock.settimeout(0.5)
        while not until(state) and time.time() < deadline:
            try:
                data = sock.recv(65536)
            except socket.timeout:
                continue
            if not data:
                break
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    state["status"][event.stream_id] = int(dict(event.headers)[":status"])
                elif isinstance(event, h2.events.DataReceived):
                    state["body"][event.stream_id] = state["body"].get(event.stream_id, b"") + event.data
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    state["ended"].add(event.stream_id)
                elif isinstance(event, h2.events.StreamReset):
                    state["reset"].add(event.stream_id)
                elif isinstance(event, h2.events.ConnectionTerminated):
                    state["goaway"] = event.last_stream_id
            sock.sendall(conn.data_to_send())
        return state

    if mode == "concurrent":
        count, size = int(sys.argv[3]), int(sys.argv[4])
        sock, conn = client()
        streams = [request(conn, "/bytes?n=%d" % size) for _ in range(count)]
        sock.sendall(conn.data_to_send())
        state = pump(sock, conn, lambda s: all(x in s["ended"] for x in streams))
        print(json.dumps({"completed": sum(1 for x in streams if x in state["ended"]),
                          "sizes": sorted(set(len(state["body"].get(x, b"")) for x in streams)),
                          "statuses": sorted(set(state["status"].get(x, 0) for x in streams))}))
    elif mode == "reset":
        sock, conn = client()
        held = request(conn, "/hold")
        sock.sendall(conn.data_to_send())
        time.sleep(0.3)
        conn.reset_stream(held)
        after = request(conn, "/hello")
        sock.sendall(conn.data_to_send())
        state = pump(sock, conn, lambda s: after in s["ended"])
        print(json.dumps({"held_answered": held in state["status"], "after_status": state["status"].get(after, 0)}))
    elif mode == "goaway":
        # raw frames: Python's h2 stops accepting frames once it has seen GOAWAY, as HTTP/2 allows it to
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(PREFACE + frame(4, 0, 0) + frame(1, 5, 1, get_block(b"/slow")))
        print(json.dumps(summary(*read_frames(sock, 5))))
    elif mode == "http1-slow-head":
        # an HTTP/1.1 head dripped one header line every 0.25 s for up to 6 s: never complete
        sock = socket.create_connection(("127.0.0.1", port))
        sock.settimeout(0.25)
        started, closed = time.time(), False
        sock.sendall(b"GET /hello HTTP/1.1\r\nHost: localhost\r\n")
        while time.time() - started < 6 and not closed:
            try:
                closed = sock.recv(65536) == b""
            except socket.timeout:
                pass
            except OSError:
                closed = True
            if not closed:
                try:
                    sock.sendall(b"X-Drip: a\r\n")
                except OSError:
                    closed = True
        print(json.dumps({"closed": closed, "seconds": round(time.time() - started, 2)}))
    elif mode == "http1-keepalive-pause":
        # two requests on one connection, the second after a pause longer than the request timeout
        sock = socket.create_connection(("127.0.0.1", port))
        sock.settimeout(3)
        answers = []
        for pause in (0, 1.5):
            time.sleep(pause)
            sock.sendall(b"GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            data = b""
            while b"hello over HTTP/1" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
            answers.append(data.split(b"\r\n", 1)[0].decode())
        print(json.dumps({"answers": answers}))
    elif mode == "one-byte":
        # undecided between HTTP/1.1 and HTTP/2 ("P" could begin either), then nothing more
        print(json.dumps(raw(b"P", seconds=3)))
    elif mode == "silent":
        sock = socket.create_connection(("127.0.0.1", port))
        print(json.dumps(summary(*read_frames(sock, 4))))
    elif mode == "httpx":
        # httpx, the HTTP/2 client Python applications use (on h2): ALPN h2 over TLS, or prior knowledge in cleartext
        import ssl
        import httpx
        if sys.argv[3] == "https":
            client = httpx.Client(http2=True, verify=ssl.create_default_context(cafile=sys.argv[4]), timeout=20)
            base = "https://localhost:%d" % port
        else:
            client = httpx.Client(http1=False, http2=True, timeout=20)
            base = "http://127.0.0.1:%d" % port
        with client:
            hello = client.get(base + "/hello")
            echo = client.post(base + "/echo", content=b'{"jsonrpc":"2.0"}',
                               headers={"content-type": "application/json"})
            big = client.get(base + "/bytes?n=300000")
            events = client.get(base + "/events")
            # The event stream shrank the server's header table to 0: fields h2's encoder indexed before (and would
            # index now) must still arrive intact on the same connection.
            after = [client.post(base + "/echo", content=b"%d" % i, headers={"content-type": "x-trace/%d" % i})
                     for i in range(10)]
        answers = (hello, echo, big, events) + tuple(after)
        print(json.dumps({"versions": sorted({r.http_version for r in answers}),
                          "statuses": sorted({r.status_code for r in answers}),
                          "hello": hello.text, "echo_tail": echo.text[-17:], "big": len(big.content),
                          "events": events.text, "after_events": [r.headers.get("content-type") for r in after]}))
    elif mode == "held-then-idle":
        # a stream held open past the idle timeout, then reset: GOAWAY only once the connection has no stream
        sock, conn = client()
        held = request(conn, "/hold")
        sock.sendall(conn.data_to_send())
        early = pump(sock, conn, lambda s: s["goaway"] is not None, seconds=2.5)
        conn.reset_stream(held)
        sock.sendall(conn.data_to_send())
        reset_at = time.time()
        late = pump(sock, conn, lambda s: s["goaway"] is not None, seconds=6)
        print(json.dumps({"goaway_while_held": early["goaway"] is not None,
                          "goaway_after_reset": late["goaway"] is not None,
                          "seconds_after_reset": round(time.time() - reset_at, 2)}))
    elif mode == "idle":
        print(json.dumps(raw(PREFACE + frame(4, 0, 0), seconds=3)))
    elif mode == "bad-preface":
        # starts like the preface (so the port takes it for HTTP/2), then is not one
        print(json.dumps(raw(b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n")))
    elif mode == "truncated":
        print(json.dumps(raw(PREFACE + frame(4, 0, 0) + frame(1, 5, 1, get_block())[:12])))
    elif mode == "big-headers":
        block = get_block() + b"\x00\x05x-big" + literal_length(20000) + b"v" * 20000
        print(json.dumps(raw(PREFACE + frame(4, 0, 0) + frame(1, 1, 1, block[:16000]) + frame(9, 4, 1, block[16000:]))))
    elif mode == "hpack-bomb":
        # one 4,000-byte entry in the dynamic table, then 12,000 one-byte references to it: ~48 MB of decoded headers
        # on three streams: the entry stays at index 62 (nothing else is added to the table)
        entry = b"\x40\x01x\x7f\xa1\x1e" + b"a" * 4000
        bombs = frame(1, 5, 1, get_block() + entry + b"\xbe" * 12000) \
            + frame(1, 5, 3, get_block() + b"\xbe" * 12000) + frame(1, 5, 5, get_block() + b"\xbe" * 12000)
        print(json.dumps(raw(PREFACE + frame(4, 0, 0) + bombs)))
    elif mode == "settings-flood":
        print(json.dumps(raw(PREFACE + frame(4, 0, 0) * 200000, seconds=5)))
    elif mode == "rst-flood":
        burst = b"".join(frame(1, 5, 2 * i + 1, get_block(b"/hold")) + frame(3, 0, 2 * i + 1, struct.pack(">I", 8))
                         for i in range(3000))
        print(json.dumps(raw(PREFACE + frame(4, 0, 0) + burst, seconds=5)))
    elif mode == "too-many-streams":
        held = b"".join(frame(1, 5, 2 * i + 1, get_block(b"/hold")) for i in range(150))
        print(json.dumps(raw(PREFACE + frame(4, 0, 0) + held)))
    elif mode == "window-overflow":
        overflow = frame(8, 0, 0, struct.pack(">I", 0x7FFFFFFF))
        print(json.dumps(raw(PREFACE + frame(4, 0, 0) + overflow)))
    """#

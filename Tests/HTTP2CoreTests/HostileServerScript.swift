/// A raw-socket HTTP/2 server in Python for the core's client: well-behaved enough to take a request, then hostile
/// in one way per mode. Arguments: mode, port, a file to create once listening. Every connection runs in a thread;
/// once the connections a mode expects (two for `goaway`, else one) have ended (the client closed them, or 8 s
/// passed) it prints a JSON summary of the first one and exits.
///
/// - `garbage`: answers the connection preface with HTTP/1.1 text instead of SETTINGS.
/// - `big-headers`: answers a request with two 40,000-byte header fields (HEADERS + CONTINUATION).
/// - `hpack-bomb`: answers with one 4,000-byte dynamic-table entry referenced 12,000 times (~48 MB decoded).
/// - `rst-flood`: resets the request, then sends 10,000 more RST_STREAMs for it; a later request gets 200.
/// - `goaway`: answers the first request, then sends GOAWAY naming it as the last stream, ignores what follows and
///   stays open; the second connection answers every request.
let hostileServerScript = #"""
    import json, socket, struct, sys, threading, time
    from hpack import Encoder

    mode, port, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
    summary = {"client_closed": False, "client_resets": [], "client_goaway": False, "requests": 0}
    expected = 2 if mode == "goaway" else 1
    lock, ended = threading.Lock(), [0]

    def frame(kind, flags, stream, payload=b""):
        return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload

    def header_frames(stream, block, end_stream):
        """HEADERS (+ CONTINUATION) frames of at most 16,384 bytes each."""
        chunks = [block[i:i + 16384] for i in range(0, len(block), 16384)] or [b""]
        out = b""
        for i, chunk in enumerate(chunks):
            last = i == len(chunks) - 1
            flags = (4 if last else 0) | (1 if end_stream and i == 0 else 0)
            out += frame(1 if i == 0 else 9, flags, stream, chunk)
        return out

    def answer(encoder, stream, body):
        block = encoder.encode([(":status", "200"), ("content-length", str(len(body)))])
        return header_frames(stream, block, False) + frame(0, 1, stream, body)

    def serve(conn, index):
        encoder = Encoder()
        conn.settimeout(0.2)
        data, started, deadline = b"", False, time.time() + 8
        if mode == "garbage":
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
        else:
            conn.sendall(frame(4, 0, 0))
        answered = 0
        while time.time() < deadline:
            try:
                chunk = conn.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                if index == 0:
                    summary["client_closed"] = True
                break
            data += chunk
            if not started:
                if len(data) < len(PREFACE):
                    continue
                data, started = data[len(PREFACE):], True
            while len(data) >= 9:
                length = int.from_bytes(data[:3], "big")
                if len(data) < 9 + length:
                    break
                kind, flags = data[3], data[4]
                stream = int.from_bytes(data[5:9], "big") & 0x7FFFFFFF
                data = data[9 + length:]
                if kind == 4 and not flags & 1:
                    conn.sendall(frame(4, 1, 0))
                elif kind == 3 and index == 0:
                    summary["client_resets"].append(stream)
                elif kind == 7 and index == 0:
                    summary["client_goaway"] = True
                elif kind == 1:
                    summary["requests"] += 1
                    respond(conn, encoder, index, stream, answered)
                    answered += 1
        conn.close()
        with lock:
            ended[0] += 1

    def respond(conn, encoder, index, stream, answered):
        if mode == "big-headers":
            block = encoder.encode([(":status", "200"), ("x-big", "v" * 40000), ("x-bigger", "v" * 40000)])
            conn.sendall(header_frames(stream, block, True))
        elif mode == "hpack-bomb":
            entry = b"\x40\x01x\x7f\xa1\x1e" + b"a" * 4000  # literal with incremental indexing: x: a*4000
            conn.sendall(header_frames(stream, b"\x88" + entry + b"\xbe" * 12000, True))
        elif mode == "rst-flood" and answered == 0:
            reset = frame(3, 0, stream, struct.pack(">I", 8))
            conn.sendall(reset * 10001)
        elif mode == "goaway" and index == 0:
            if answered == 0:
                conn.sendall(answer(encoder, stream, b"first") + frame(7, 0, 0, struct.pack(">II", stream, 0)))
        else:
            conn.sendall(answer(encoder, stream, b"connection %d" % index))

    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(8)
    server.settimeout(0.2)
    open(ready, "w").close()
    index, deadline = 0, time.time() + 15
    while time.time() < deadline:
        with lock:
            if ended[0] >= expected:
                break
        try:
            conn, _ = server.accept()
        except socket.timeout:
            continue
        threading.Thread(target=serve, args=(conn, index), daemon=True).start()
        index += 1
    print(json.dumps(summary), flush=True)
    """#

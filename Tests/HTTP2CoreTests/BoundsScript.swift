/// The Python peer of ``BoundedRequestTests``: requests that never end, bodies that trickle, connections held from one
/// address, a client that never reads. Each mode prints one JSON object.
let boundsScript = #"""
    import json, socket, ssl, sys, time
    import h2.config, h2.connection, h2.events, h2.exceptions

    mode, port = sys.argv[1], int(sys.argv[2])

    def connect(cafile=None, alpn="h2", source="127.0.0.1"):
        # a timeout until a mode sets its own: a TLS handshake or a send never waits forever
        sock = socket.create_connection(("127.0.0.1", port), timeout=20, source_address=(source, 0))
        if cafile:
            context = ssl.create_default_context(cafile=cafile)
            context.set_alpn_protocols([alpn])
            sock = context.wrap_socket(sock, server_hostname="localhost")
        return sock

    def h2_client(sock):
        conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
        return conn

    def post(conn, path="/echo"):
        stream = conn.get_next_available_stream_id()
        conn.send_headers(stream, [(":method", "POST"), (":path", path), (":scheme", "https"),
                                   (":authority", "localhost"), ("content-type", "application/json")])
        return stream

    if mode == "unfinished":
        # Stream 1: HEADERS only. Stream 3: a body trickled 10 bytes every 100 ms. Streams 5, 7, 9, 11: as much body as
        # flow control allows, never ended. Runs `seconds`, answering nothing but what h2 must.
        cafile = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] != "-" else None
        seconds = float(sys.argv[3])
        sock = connect(cafile)
        conn = h2_client(sock)
        silent, trickle = post(conn), post(conn)
        bulk = [post(conn) for _ in range(4)]
        sock.sendall(conn.data_to_send())
        sent = {s: 0 for s in [trickle] + bulk}
        status, resets, ended, closed = {}, {}, set(), False
        start, last_trickle = time.time(), 0.0
        sock.settimeout(0.05)
        while time.time() - start < seconds and not closed:
            now = time.time()
            if now - last_trickle >= 0.1 and trickle not in resets and trickle not in status:
                try:
                    conn.send_data(trickle, b"x" * 10)
                    sent[trickle] += 10
                except h2.exceptions.H2Error:
                    pass
                last_trickle = now
            for stream in bulk:
                if stream in resets or stream in status:
                    continue
                try:
                    room = min(conn.local_flow_control_window(stream), 16384)
                except h2.exceptions.H2Error:
                    continue
                if room > 0:
                    conn.send_data(stream, b"y" * room)
                    sent[stream] += room
            try:
                sock.sendall(conn.data_to_send())
                data = sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                closed = True
                break
            if not data:
                closed = True
                break
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    status[event.stream_id] = [int(dict(event.headers)[":status"]), round(time.time() - start, 2)]
                elif isinstance(event, h2.events.DataReceived):
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamReset):
                    resets[event.stream_id] = [event.error_code, round(time.time() - start, 2)]
                elif isinstance(event, h2.events.StreamEnded):
                    ended.add(event.stream_id)
            if all(s in resets or s in ended for s in [silent, trickle] + bulk):
                break
        print(json.dumps({"status": {str(k): v for k, v in status.items()},
                          "resets": {str(k): v for k, v in resets.items()},
                          "sent": {str(k): v for k, v in sent.items()}, "closed": closed,
                          "seconds": round(time.time() - start, 2)}))
    elif mode == "http1-unfinished":
        # HTTP/1.1 over TLS (ALPN http/1.1): a declared 100,000-byte body of which 1,000 bytes come.
        sock = connect(sys.argv[3], alpn="http/1.1")
        sock.sendall(b"POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n" + b"z" * 1000)
        sock.settimeout(15)
        start, data = time.time(), b""
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        except (socket.timeout, OSError):
            pass
        head = data.split(b"\r\n", 1)[0].decode(errors="replace")
        print(json.dumps({"status_line": head, "closed_after": round(time.time() - start, 2),
                          "rpc_error": b"-32600" in data}))
    elif mode == "hold":
        # `count` connections from `source`, each sending the preface; then how many the server kept open.
        count, source = int(sys.argv[3]), sys.argv[4]
        preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
        sockets, failed = [], 0
        for _ in range(count):
            try:
                sock = connect(source=source)
                sock.sendall(preface)
                sockets.append(sock)
            except OSError:
                failed += 1
        def still_open(sock):
            sock.setblocking(False)
            try:
                while True:
                    if not sock.recv(65536):
                        return False
            except BlockingIOError:
                return True
            except OSError:
                return False
        # The server refuses as fast as it accepts: on a busy machine that takes a while (bounded: 20 s).
        deadline, open_count = time.time() + 20, len(sockets)
        while time.time() < deadline:
            time.sleep(0.5)
            sockets = [sock for sock in sockets if still_open(sock)]
            if len(sockets) == open_count and open_count <= 512:
                break
            open_count = len(sockets)
        # while they are held: a request from 127.0.0.1
        other = connect()
        conn = h2_client(other)
        stream = conn.get_next_available_stream_id()
        conn.send_headers(stream, [(":method", "GET"), (":path", "/hello"), (":scheme", "http"),
                                   (":authority", "localhost")], end_stream=True)
        other.sendall(conn.data_to_send())
        other.settimeout(10)
        hello = 0
        try:
            while not hello:
                data = other.recv(65536)
                if not data:
                    break
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.ResponseReceived):
                        hello = int(dict(event.headers)[":status"])
                other.sendall(conn.data_to_send())
        except (socket.timeout, OSError):
            pass
        print(json.dumps({"open": open_count, "attempted": count, "connect_failed": failed, "hello": hello}))
    elif mode == "never-read":
        # asks for `size` bytes and never reads the socket: the stream stalls once the windows are full
        size, seconds = int(sys.argv[3]), float(sys.argv[4])
        sock = connect()
        conn = h2_client(sock)
        stream = conn.get_next_available_stream_id()
        conn.send_headers(stream, [(":method", "GET"), (":path", "/bytes?n=%d" % size), (":scheme", "http"),
                                   (":authority", "localhost")], end_stream=True)
        sock.sendall(conn.data_to_send())
        time.sleep(seconds)
        sock.settimeout(5)
        received, closed = 0, False
        end = time.time() + 30  # bounded even if the server kept trickling bytes
        try:
            while time.time() < end:
                chunk = sock.recv(1 << 20)
                if not chunk:
                    closed = True
                    break
                received += len(chunk)
        except socket.timeout:
            pass
        except OSError:
            closed = True
        print(json.dumps({"closed": closed, "received": received}))
    """#

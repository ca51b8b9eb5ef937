"""The direct channel's reader (Clients/Web/sdk/eventstream.js) in real Chromium, against scripted streams: a page's
`fetch` is replaced by one that answers each connection as the test says (chunks with delays, a stream that goes
silent, headers that never come), so no SecurePush service is needed.

- a line or an event's data over 64 KiB throws (the parser's memory is bounded), and the stream reconnects;
- the ids a stream remembers as handled are bounded (the most recent 1,000);
- a connected stream that goes silent (no `: keepalive`) is dropped after the idle timeout, keepalives reset it, and a
  connection whose headers never come is dropped after the connect timeout.
"""

import unittest

import harness

# Runs runEventStream against `connections` (one spec per connection; the last one repeats):
#   {hang: true}                              fetch never answers (until aborted)
#   {chunks: [[delayMs, text], ...], end}     200 with those chunks, then 'close' or 'hang'
# Resolves when `stopWhen` ids were handled or `limitMs` passed: {ids, states, connections, elapsed}.
RUN_JS = """async ({connections, stopAfterIds, limitMs, options}) => {
  const es = await import('/sdk/eventstream.js');
  const enc = new TextEncoder();
  const started = performance.now();
  const states = [];
  const ids = [];
  let count = 0;
  const controller = new AbortController();
  const abortable = (signal, reject) => signal.addEventListener('abort', () => reject(signal.reason), {once: true});
  window.fetch = (url, init) => {
    const spec = connections[Math.min(count, connections.length - 1)];
    count += 1;
    if (spec.hang) return new Promise((_, reject) => abortable(init.signal, reject));
    let cancelled = false;
    const body = new ReadableStream({
      async start(stream) {
        init.signal.addEventListener('abort', () => { cancelled = true; try { stream.error(init.signal.reason); } catch {} },
                                    {once: true});
        for (const [delay, text] of spec.chunks) {
          await new Promise((r) => setTimeout(r, delay));
          if (cancelled) return;
          stream.enqueue(enc.encode(text));
        }
        if (spec.end === 'close' && !cancelled) stream.close();
      },
      cancel() { cancelled = true; },
    });
    return Promise.resolve(new Response(body, {status: 200, headers: {'Content-Type': 'text/event-stream'}}));
  };
  const reporter = new es.ConnectionReporter({
    dispatchURL: 'http://push.invalid', deviceId: 'device',
    onState: (s) => states.push({state: s.state, reason: s.reason ?? null, at: Math.round(performance.now() - started)}),
  });
  const timer = setTimeout(() => controller.abort(), limitMs);
  const done = es.runEventStream({
    dispatchURL: 'http://push.invalid', deviceId: 'device', signal: controller.signal, reporter,
    accessToken: async () => 'token', refresh: async () => {},
    onNotify: async ({notificationId}) => {
      ids.push(notificationId);
      if (ids.length >= stopAfterIds) controller.abort();
      return true;
    },
    ...options,
  });
  let error = null;
  try { await done; } catch (e) { error = String(e && e.message || e); }
  clearTimeout(timer);
  return {ids, states, connections: count, error, elapsed: Math.round(performance.now() - started)};
}"""


def notify(notification_id):
    return ('data: {"jsonrpc":"2.0","method":"push.notify","params":{"notificationId":"%s"}}\n\n'
            % notification_id)


class EventStreamTests(harness.StaticPageTestCase, unittest.TestCase):

    def run_stream(self, connections, stop_after_ids, limit_ms=20000, **options):
        return self.page.evaluate(RUN_JS, {"connections": connections, "stopAfterIds": stop_after_ids,
                                           "limitMs": limit_ms, "options": options})

    def test_the_parser_bounds_a_line_and_an_events_data(self):
        result = self.page.evaluate("""async () => {
          const {ServerSentEventParser, MAX_EVENT_BYTES} = await import('/sdk/eventstream.js');
          const code = (f) => { try { f(); return 'no error'; } catch (e) { return e.code; } };
          const line = new ServerSentEventParser();
          const oneLine = code(() => line.feed('data: ' + 'x'.repeat(MAX_EVENT_BYTES + 10)));
          const chunked = new ServerSentEventParser();
          let fed = 0;
          const inChunks = code(() => { chunked.feed('data: '); for (;;) { chunked.feed('x'.repeat(1000)); fed += 1000;
                                                                          if (fed > 10 * MAX_EVENT_BYTES) break; } });
          const data = new ServerSentEventParser();
          const manyLines = code(() => { for (let i = 0; i < 200; i++) data.feed('data: ' + 'y'.repeat(1000) + '\\n'); });
          const fits = new ServerSentEventParser().feed('data: ' + 'z'.repeat(60000) + '\\n\\n');
          return {oneLine, inChunks, fedKiB: Math.round(fed / 1024), manyLines, fits: fits[0]?.data.length,
                  max: MAX_EVENT_BYTES};
        }""")
        self.assertEqual(result["max"], 64 * 1024)
        self.assertEqual(result["oneLine"], "oversized", result)
        self.assertEqual(result["inChunks"], "oversized", result)
        self.assertLessEqual(result["fedKiB"], 66, f"the parser buffered {result['fedKiB']} KiB before refusing")
        self.assertEqual(result["manyLines"], "oversized", result)
        self.assertEqual(result["fits"], 60000, result)

    def test_an_oversized_line_reconnects_and_remembered_ids_are_bounded(self):
        ids = [f"n{i}" for i in range(1001)]
        result = self.run_stream([
            # 1: an id, then a line that never ends (70 KiB in 7 chunks): dropped, reconnected.
            {"chunks": [[0, notify("first")]] + [[5, "data: " + "x" * 10240]] * 7, "end": "hang"},
            # 2: the same id again (remembered: skipped), 1,001 more, then the oldest and the newest of them again.
            {"chunks": [[0, notify("first") + "".join(notify(i) for i in ids)], [0, notify("n0") + notify("n1000")],
                        [0, notify("last")]], "end": "hang"},
        ], stop_after_ids=1004)
        states = [s["state"] for s in result["states"]]
        self.assertEqual(states[:3], ["connecting", "connected", "disconnected"], result["states"])
        self.assertIn("longer than", result["states"][2]["reason"], result["states"])
        self.assertIn("reconnected", states)
        self.assertEqual(result["connections"], 2, result["connections"])
        handled = result["ids"]
        self.assertEqual(handled[0], "first")
        self.assertEqual(handled[1:1002], ids, "the second connection's ids")
        # "first" was not handled twice; "n0" had been forgotten (1,000 newer ids since), "n1000" had not.
        self.assertEqual(handled[1002:], ["n0", "last"], handled[1002:])

    def test_a_silent_stream_and_a_connection_without_headers_are_dropped(self):
        keepalives = [[400, ": keepalive\n"]] * 8  # 3.2 s of keepalives, each well within the idle timeout
        result = self.run_stream([
            {"chunks": [[0, ": hello\n"]] + keepalives, "end": "hang"},  # then silent
            {"hang": True},
            {"chunks": [[0, notify("after")]], "end": "hang"},
        ], stop_after_ids=1, limit_ms=25000, idleTimeoutMs=1500, connectTimeoutMs=1000)
        self.assertEqual(result["ids"], ["after"], result)
        self.assertEqual(result["connections"], 3, result)
        disconnected = [s for s in result["states"] if s["state"] == "disconnected"]
        self.assertEqual(len(disconnected), 2, result["states"])
        self.assertIn("no data from push-dispatch", disconnected[0]["reason"], disconnected)
        # Keepalives kept it up: it was dropped only after they stopped (3.2 s + the 1.5 s idle timeout).
        self.assertGreaterEqual(disconnected[0]["at"], 4500, disconnected)
        self.assertLess(disconnected[0]["at"], 8000, disconnected)
        self.assertIn("did not answer", disconnected[1]["reason"], disconnected)
        self.assertEqual(result["states"][-1]["state"], "reconnected", result["states"])
        self.assertIsNone(result["error"], result)


if __name__ == "__main__":
    unittest.main()

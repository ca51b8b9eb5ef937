// SecurePush browser SDK: the direct channel in a page (docs/rpc.md, "Direct channel"): `GET
// <dispatchURL>/devices/{deviceId}/events` read with fetch() (EventSource cannot send a bearer token), parsed as
// text/event-stream, reconnected with backoff; its states are described like the CLI's `securepush listen` prints them.

import { SecurePushError, ErrorCodes } from './errors.js';
import { joinURL } from './rpc.js';

/** The longest line, and the most data of one event, the parser keeps (characters): a stream past it is dropped. */
export const MAX_EVENT_BYTES = 64 * 1024;
/** How many notification ids a stream remembers as handled (the most recent ones). */
export const MAX_SEEN_IDS = 1000;
/** How long a connection may take to answer with its headers. */
export const CONNECT_TIMEOUT_MS = 15000;
/** How long a connected stream may stay silent (push-dispatch writes `: keepalive` every 15 s) before it is dropped. */
export const IDLE_TIMEOUT_MS = 45000;

/**
 * Splits a text/event-stream into events (WHATWG server-sent events): `{id, event, data}`. A line or an event's data
 * longer than `maxBytes` (default 64 KiB) throws SecurePushError 'oversized': the stream is not what push-dispatch
 * sends, and is dropped (and reconnected) instead of growing without bound.
 */
export class ServerSentEventParser {
  #buffer = '';
  #id = null;
  #name = null;
  #data = '';
  #hasData = false;
  #maxBytes;

  constructor({ maxBytes = MAX_EVENT_BYTES } = {}) {
    this.#maxBytes = maxBytes;
  }

  /** Feeds text; returns the events it completed. */
  feed(text) {
    this.#buffer += text;
    const events = [];
    try {
      this.#drain(events);
    } catch (error) {
      this.#buffer = '';
      this.#data = '';
      this.#hasData = false;
      throw error;
    }
    if (this.#buffer.length > this.#maxBytes) {
      this.#buffer = '';
      throw new SecurePushError(ErrorCodes.oversized, `an event-stream line is longer than ${this.#maxBytes} bytes`);
    }
    return events;
  }

  #drain(events) {
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.#buffer);
      if (!match) break;
      // A lone "\r" at the very end may be the first half of "\r\n": wait for more.
      if (match[0] === '\r' && match.index === this.#buffer.length - 1) break;
      const line = this.#buffer.slice(0, match.index);
      this.#buffer = this.#buffer.slice(match.index + match[0].length);
      const event = this.#line(line);
      if (event) events.push(event);
    }
  }

  #line(line) {
    if (line === '') {
      const event = this.#hasData ? { id: this.#id, event: this.#name, data: this.#data } : null;
      this.#name = null;
      this.#data = '';
      this.#hasData = false;
      this.#id = null;
      return event;
    }
    if (line.startsWith(':')) return null; // a comment, e.g. ": keepalive"
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      const grown = this.#hasData ? this.#data.length + 1 + value.length : value.length;
      if (grown > this.#maxBytes) {
        throw new SecurePushError(ErrorCodes.oversized, `an event's data is longer than ${this.#maxBytes} bytes`);
      }
      this.#data = this.#hasData ? this.#data + '\n' + value : value;
      this.#hasData = true;
    } else if (field === 'id') {
      this.#id = value;
    } else if (field === 'event') {
      this.#name = value;
    }
    return null;
  }
}

/** The params of a `push.notify` event (`{notificationId, traceparent?}`), or null. */
export function notifyParams(event) {
  try {
    const message = JSON.parse(event.data);
    if (message?.jsonrpc !== '2.0' || message.method !== 'push.notify') return null;
    const params = message.params;
    if (!params || typeof params.notificationId !== 'string' || !params.notificationId) return null;
    return {
      notificationId: params.notificationId,
      traceparent: typeof params.traceparent === 'string' ? params.traceparent : undefined,
    };
  } catch {
    return null;
  }
}

/** Why a stream dropped, in a few words (as the CLI says it). */
export function describeReason(reason) {
  if (reason == null) return 'push-dispatch closed the stream';
  if (reason instanceof SecurePushError) {
    if (reason.code === ErrorCodes.network) return 'cannot reach push-dispatch';
    if (reason.code === ErrorCodes.unavailable) {
      const dependency = typeof reason.data?.dependency === 'string' ? reason.data.dependency : 'a service';
      return `cannot reach ${dependency} to renew the session`;
    }
    if (reason.code === ErrorCodes.http) return `push-dispatch answered HTTP ${reason.data?.status}`;
    return reason.message;
  }
  if (reason instanceof TypeError) return 'cannot reach push-dispatch';
  return String(reason?.message ?? reason);
}

function formatSeconds(ms) {
  const seconds = ms / 1000;
  return seconds < 1 ? `${seconds.toFixed(1)} s` : `${Math.round(seconds)} s`;
}

/**
 * Turns raw connection events into the states the page sees, with the CLI's lines in `message`:
 * `{state: 'connecting'}` "connecting to push-dispatch at <url>…" (once), `{state: 'connected'}` "connected:
 * listening for secure notifications on device <id>", `{state: 'reconnected'}` "reconnected", `{state:
 * 'disconnected', reason, retryInMs}` "connection lost: … — retrying in N s" / "not connected: …" / "still not
 * connected: …", `{state: 'another-tab'}` while another tab of this browser holds the stream, `{state: 'stopped',
 * reason?}` when it ended for good (stop(), signed out, device refused).
 */
export class ConnectionReporter {
  #everConnected = false;
  #connected = false;
  #announcedConnecting = false;
  #last = null;

  constructor({ dispatchURL, deviceId, onState }) {
    this.dispatchURL = dispatchURL;
    this.deviceId = deviceId;
    this.onState = onState;
  }

  #emit(state) {
    try {
      this.onState?.(state);
    } catch {
      // A throwing callback must not end the stream.
    }
  }

  connecting() {
    if (this.#announcedConnecting) return;
    this.#announcedConnecting = true;
    this.#emit({
      state: 'connecting',
      deviceId: this.deviceId,
      message: `connecting to push-dispatch at ${this.dispatchURL}…`,
    });
  }

  connected() {
    const again = this.#everConnected;
    this.#everConnected = true;
    this.#connected = true;
    this.#last = null;
    this.#emit({
      state: again ? 'reconnected' : 'connected',
      deviceId: this.deviceId,
      message: again
        ? 'reconnected'
        : `connected: listening for secure notifications on device ${this.deviceId}`,
    });
  }

  disconnected(reason, retryInMs) {
    const wasConnected = this.#connected;
    this.#connected = false;
    const why = describeReason(reason);
    let what;
    if (wasConnected || this.#last === null) {
      what = this.#everConnected ? 'connection lost' : 'not connected';
      this.#last = { still: false, why };
    } else if (this.#last.still && this.#last.why === why) {
      return; // each retry's longer delay is not news
    } else {
      what = 'still not connected';
      this.#last = { still: true, why };
    }
    this.#emit({
      state: 'disconnected',
      deviceId: this.deviceId,
      reason: why,
      error: reason ?? undefined,
      retryInMs,
      message: `${what}: ${why} — retrying in ${formatSeconds(retryInMs)}`,
    });
  }

  /** Another tab of this browser holds the stream (Web Lock): this one receives through it. */
  elsewhere() {
    this.#emit({
      state: 'another-tab',
      deviceId: this.deviceId,
      message: 'receiving through another tab of this browser (it holds the connection to push-dispatch)',
    });
  }

  stopped(reason) {
    this.#connected = false;
    this.#emit({
      state: 'stopped',
      deviceId: this.deviceId,
      reason: reason ? describeReason(reason) : undefined,
      error: reason ?? undefined,
      message: reason ? `stopped: ${describeReason(reason)}` : 'stopped',
    });
  }
}

const INITIAL_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30000;

function jittered(ms) {
  return Math.round(ms * (0.75 + Math.random() * 0.5));
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A bounded set of recent ids: the oldest is forgotten past `limit`. */
class RecentIds {
  #ids = new Set();
  #limit;

  constructor(limit) {
    this.#limit = limit;
  }

  has(id) {
    return this.#ids.has(id);
  }

  add(id) {
    this.#ids.delete(id);
    this.#ids.add(id);
    while (this.#ids.size > this.#limit) this.#ids.delete(this.#ids.values().next().value);
  }

  delete(id) {
    this.#ids.delete(id);
  }
}

/**
 * An AbortSignal that aborts when `signal` or `local` does: AbortSignal.any where the browser has it, else forwarded
 * by hand. (Not AbortSignal.timeout: its timer could not be stopped once the headers arrived, and it would then cut
 * a healthy stream; the connect and idle deadlines are one resettable timer on `local`.)
 */
function eitherSignal(signal, local) {
  if (typeof AbortSignal.any === 'function') return { signal: AbortSignal.any([signal, local.signal]), release() {} };
  const onAbort = () => local.abort(signal.reason);
  if (signal.aborted) local.abort(signal.reason);
  else signal.addEventListener('abort', onAbort, { once: true });
  return { signal: local.signal, release: () => signal.removeEventListener('abort', onAbort) };
}

/**
 * Runs the event stream of `deviceId` until `signal` aborts or the stream is refused for good.
 * - `accessToken()` returns a valid access token (refreshing when needed); `refresh(staleToken)` renews it after a 401
 *   (once: a second 401 in a row backs off).
 * - `onNotify({notificationId, traceparent})` is awaited for each new id (the last 1,000 ids handled in this run are
 *   skipped); it returns false to have the id offered again after a reconnect.
 * - A connection must answer with its headers within `connectTimeoutMs` (15 s) and, once up, send something (an
 *   event or push-dispatch's `: keepalive`, every 15 s) at least every `idleTimeoutMs` (45 s); else it is dropped and
 *   reconnected. A line or an event's data over 64 KiB drops it too.
 * Backoff: 1 s doubling to 30 s with jitter for failures in a row; a stream that was up reconnects after ~1 s.
 */
export async function runEventStream({
  dispatchURL,
  deviceId,
  accessToken,
  refresh,
  onNotify,
  reporter,
  signal,
  connectTimeoutMs = CONNECT_TIMEOUT_MS,
  idleTimeoutMs = IDLE_TIMEOUT_MS,
  maxEventBytes = MAX_EVENT_BYTES,
}) {
  const seen = new RecentIds(MAX_SEEN_IDS);
  let backoff = INITIAL_BACKOFF_MS;
  let unauthorizedInARow = 0;
  const url = joinURL(dispatchURL, `/devices/${encodeURIComponent(deviceId)}/events`);
  while (!signal.aborted) {
    reporter.connecting();
    let failure = null;
    let connected = false;
    let token = null;
    const local = new AbortController();
    const linked = eitherSignal(signal, local);
    let timer = null;
    let timedOut = null;
    const arm = (ms, what) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = new SecurePushError(ErrorCodes.timeout, what);
        local.abort(timedOut);
      }, ms);
    };
    try {
      token = await accessToken();
      arm(connectTimeoutMs, `push-dispatch did not answer within ${formatSeconds(connectTimeoutMs)}`);
      const response = await fetch(url, {
        method: 'GET',
        headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' },
        mode: 'cors',
        credentials: 'omit',
        cache: 'no-store',
        signal: linked.signal,
      });
      if (response.status === 200) {
        connected = true;
        unauthorizedInARow = 0;
        reporter.connected();
        const idle = `no data from push-dispatch for ${formatSeconds(idleTimeoutMs)}`;
        arm(idleTimeoutMs, idle);
        const parser = new ServerSentEventParser({ maxBytes: maxEventBytes });
        const decoder = new TextDecoder();
        const reader = response.body.getReader();
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            arm(idleTimeoutMs, idle); // every chunk (a keepalive too) proves the connection is alive
            for (const event of parser.feed(decoder.decode(value, { stream: true }))) {
              const notify = notifyParams(event);
              if (!notify || seen.has(notify.notificationId)) continue;
              seen.add(notify.notificationId);
              // Handling (opening, acknowledging) has its own timeouts; the stream's silence meanwhile is not news.
              clearTimeout(timer);
              const handled = await onNotify(notify);
              if (handled === false) seen.delete(notify.notificationId);
              arm(idleTimeoutMs, idle);
            }
          }
        } finally {
          reader.cancel().catch(() => {});
        }
        // The server ended a healthy stream (restart, token expiry): reconnect soon.
      } else if (response.status === 401) {
        clearTimeout(timer);
        response.body?.cancel().catch(() => {});
        unauthorizedInARow += 1;
        if (unauthorizedInARow <= 1) {
          await refresh(token);
          continue;
        }
        // Refused again with a fresh token (a clock far off?): back off instead of spinning.
        failure = new SecurePushError(ErrorCodes.http, 'HTTP 401', { status: 401 });
      } else if ([400, 403, 404, 410].includes(response.status)) {
        let detail = '';
        try {
          detail = (await response.json())?.error?.message ?? '';
        } catch {
          // no JSON body
        }
        throw new SecurePushError(
          ErrorCodes.streamRefused,
          `push-dispatch refused the stream (HTTP ${response.status}${detail ? `: ${detail}` : ''})`,
          { status: response.status },
        );
      } else {
        response.body?.cancel().catch(() => {});
        failure = new SecurePushError(ErrorCodes.http, `HTTP ${response.status}`, { status: response.status });
      }
    } catch (error) {
      if (signal.aborted) break;
      if (error instanceof SecurePushError) {
        if (error.code === ErrorCodes.streamRefused || error.code === ErrorCodes.notSignedIn) throw error;
        // The session cannot be renewed (refresh token spent or revoked): sign in again.
        if (error.code === ErrorCodes.unauthenticated) throw error;
      }
      failure = timedOut ?? error;
    } finally {
      clearTimeout(timer);
      linked.release();
      local.abort(); // whatever is left of this connection
    }
    if (signal.aborted) break;
    if (connected) backoff = INITIAL_BACKOFF_MS;
    const delay = jittered(backoff);
    reporter.disconnected(failure, delay);
    await sleep(delay, signal);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

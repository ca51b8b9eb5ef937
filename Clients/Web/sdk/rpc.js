// SecurePush browser SDK: JSON-RPC 2.0 over `POST <service>/rpc` with fetch (docs/rpc.md).

import { SecurePushError, ErrorCodes } from './errors.js';
import { base64urlEncode, randomBytes } from './base64url.js';

/** Default time a call may take before it is aborted (`timeout`). */
export const DEFAULT_TIMEOUT_MS = 15000;
/** Largest response body read (a store.get answer carries at most a 64 KiB payload, or its sealed copy). */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** Whether `value` is a well-formed W3C `traceparent` (malformed ones are not sent). */
export function isTraceparent(value) {
  return typeof value === 'string' && TRACEPARENT.test(value) && !/^ff-/.test(value) &&
    !/-0{32}-/.test(value) && !/-0{16}-/.test(value);
}

/** `base` without trailing slashes, plus `path`. */
export function joinURL(base, path) {
  return String(base).replace(/\/+$/, '') + path;
}

/**
 * A signal that aborts when `signal` does or after `timeoutMs`; `cancel()` clears the timer. `timedOut()` says which.
 */
export function deadline(signal, timeoutMs) {
  const controller = new AbortController();
  let timedOut = false;
  const timer =
    Number.isFinite(timeoutMs) && timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new SecurePushError(ErrorCodes.timeout, 'timed out'));
        }, timeoutMs)
      : null;
  const onAbort = () => controller.abort(signal.reason);
  if (signal) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    cancel() {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

async function readLimited(response, limit) {
  if (!response.body || typeof response.body.getReader !== 'function') {
    const text = await response.text();
    if (text.length > limit) throw new SecurePushError(ErrorCodes.oversized, 'response too large');
    return text;
  }
  const reader = response.body.getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      reader.cancel().catch(() => {});
      throw new SecurePushError(ErrorCodes.oversized, 'response too large');
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.length;
  }
  return new TextDecoder().decode(bytes);
}

/**
 * Calls `method` on the service at `baseURL` (`POST <baseURL>/rpc`) and returns its `result`.
 * A JSON-RPC error is thrown as SecurePushError with its code, message and data; a network failure as 'network', a
 * timeout as 'timeout', an answer that is not JSON-RPC as 'http' (data.status) or 'invalid-response'.
 * @param {string} baseURL
 * @param {string} method
 * @param {object} params
 * @param {{token?: string, proof?: string, traceparent?: string, headers?: object, signal?: AbortSignal,
 *          timeoutMs?: number, maxResponseBytes?: number, fetch?: Function}} [options]
 */
export async function rpcCall(baseURL, method, params = {}, options = {}) {
  const {
    token,
    proof,
    traceparent,
    headers: extraHeaders,
    signal,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
    fetch: fetchImpl = globalThis.fetch.bind(globalThis),
  } = options;
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json', ...(extraHeaders || {}) };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (proof) headers['SecurePush-Device-Proof'] = proof;
  if (isTraceparent(traceparent)) headers.traceparent = traceparent;
  const id = base64urlEncode(randomBytes(9));
  const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
  const limit = deadline(signal, timeoutMs);
  let response;
  let text;
  try {
    try {
      response = await fetchImpl(joinURL(baseURL, '/rpc'), {
        method: 'POST',
        headers,
        body,
        mode: 'cors',
        credentials: 'omit',
        cache: 'no-store',
        signal: limit.signal,
      });
      text = await readLimited(response, maxResponseBytes);
    } catch (error) {
      if (error instanceof SecurePushError) throw error;
      if (limit.timedOut()) throw new SecurePushError(ErrorCodes.timeout, `${method}: timed out`);
      if (signal?.aborted) throw signal.reason ?? new SecurePushError(ErrorCodes.timeout, `${method}: aborted`);
      throw new SecurePushError(ErrorCodes.network, `${method}: cannot reach the service`, { cause: String(error) });
    }
  } finally {
    limit.cancel();
  }
  let message;
  try {
    message = text ? JSON.parse(text) : null;
  } catch {
    message = null;
  }
  if (message && typeof message === 'object' && message.error && typeof message.error === 'object') {
    const { code, message: what, data } = message.error;
    throw new SecurePushError(code, what, data);
  }
  if (!response.ok) {
    throw new SecurePushError(ErrorCodes.http, `${method}: HTTP ${response.status}`, { status: response.status });
  }
  if (!message || typeof message !== 'object' || !('result' in message)) {
    throw new SecurePushError(ErrorCodes.invalidResponse, `${method}: the answer is not a JSON-RPC response`);
  }
  return message.result;
}

/** The claims of a JWT (not verified: only for reading `exp`, `iat`, `sub`), or null. */
export function jwtClaims(token) {
  if (typeof token !== 'string') return null;
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const b64 = parts[1].replace(/-/g, '+').replace(/_/g, '/');
    const json = atob(b64 + '==='.slice((b64.length + 3) % 4));
    const bytes = Uint8Array.from(json, (c) => c.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder().decode(bytes));
    return claims && typeof claims === 'object' ? claims : null;
  } catch {
    return null;
  }
}

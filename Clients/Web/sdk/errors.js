// SecurePush browser SDK: the one error type the SDK throws.

/**
 * An error from a SecurePush service (`code` is the JSON-RPC error code, e.g. -32010, and `data` its data) or from
 * the SDK itself (`code` is a short string, e.g. 'not-signed-in', 'invalid-sealed-copy', 'network', 'timeout').
 */
export class SecurePushError extends Error {
  constructor(code, message, data) {
    super(message || String(code));
    this.name = 'SecurePushError';
    this.code = code;
    this.data = data;
  }
}

/** JSON-RPC error codes of docs/rpc.md, and the SDK's own codes. */
export const ErrorCodes = Object.freeze({
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  unauthenticated: -32001,
  forbidden: -32003,
  notFound: -32004,
  conflict: -32009,
  gone: -32010,
  rateLimited: -32029,
  unavailable: -32050,
  // The SDK's own (strings, never numbers):
  notSignedIn: 'not-signed-in',
  noDevice: 'no-device',
  invalidSealedCopy: 'invalid-sealed-copy',
  oversized: 'oversized',
  noPayload: 'no-payload',
  network: 'network',
  timeout: 'timeout',
  http: 'http',
  streamRefused: 'stream-refused',
  unsupported: 'unsupported',
  config: 'config',
  invalidResponse: 'invalid-response',
});

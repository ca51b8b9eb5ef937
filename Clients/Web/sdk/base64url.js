// SecurePush browser SDK: base64url (RFC 4648 §5, no padding, as RFC 7515 uses it), UTF-8 and hex helpers.
// Plain ES module, no dependencies; works in pages and (module) service workers.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

/** Bytes (Uint8Array, ArrayBuffer or a view) as base64url without padding. */
export function base64urlEncode(input) {
  const bytes = toBytes(input);
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += ALPHABET[n >>> 18] + ALPHABET[(n >>> 12) & 63] + ALPHABET[(n >>> 6) & 63] + ALPHABET[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i] << 16;
    out += ALPHABET[n >>> 18] + ALPHABET[(n >>> 12) & 63];
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += ALPHABET[n >>> 18] + ALPHABET[(n >>> 12) & 63] + ALPHABET[(n >>> 6) & 63];
  }
  return out;
}

/**
 * Strict base64url without padding: anything else (padding, `+`, `/`, whitespace, an impossible length, non-zero
 * trailing bits) throws a TypeError.
 */
export function base64urlDecode(text) {
  if (typeof text !== 'string') throw new TypeError('base64url: not a string');
  const length = text.length;
  if (length % 4 === 1) throw new TypeError('base64url: impossible length');
  const out = new Uint8Array(Math.floor((length * 3) / 4));
  let o = 0;
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? LOOKUP[c] : -1;
    if (v < 0) throw new TypeError('base64url: invalid character');
    buffer = (buffer << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >>> bits) & 0xff;
      buffer &= (1 << bits) - 1;
    }
  }
  if (buffer !== 0) throw new TypeError('base64url: non-canonical trailing bits');
  return out.subarray(0, o);
}

/** Uint8Array view of a Uint8Array, ArrayBuffer or any ArrayBuffer view (no copy). */
export function toBytes(input) {
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError('expected bytes (Uint8Array or ArrayBuffer)');
}

const encoder = new TextEncoder();

/** UTF-8 bytes of a string. */
export function utf8Encode(text) {
  return encoder.encode(text);
}

/** A string from UTF-8 bytes; invalid UTF-8 throws (never replacement characters). */
export function utf8Decode(bytes) {
  return new TextDecoder('utf-8', { fatal: true }).decode(toBytes(bytes));
}

/** Bytes from a hex string (test vectors). */
export function hexToBytes(hex) {
  if (typeof hex !== 'string' || hex.length % 2 !== 0 || /[^0-9a-fA-F]/.test(hex)) {
    throw new TypeError('hex: not an even-length hex string');
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

/** Lowercase hex of bytes. */
export function bytesToHex(input) {
  return Array.from(toBytes(input), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Concatenates byte arrays. */
export function concatBytes(...parts) {
  const arrays = parts.map(toBytes);
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let offset = 0;
  for (const a of arrays) {
    out.set(a, offset);
    offset += a.length;
  }
  return out;
}

/** `count` cryptographically random bytes. */
export function randomBytes(count) {
  return crypto.getRandomValues(new Uint8Array(count));
}

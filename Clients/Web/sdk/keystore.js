// SecurePush browser SDK: the device key and the IndexedDB store of the app's origin.
//
// One P-256 key serves HPKE opening (ECDH) and device proofs (ECDSA). A WebCrypto key's algorithm is fixed when it is
// made, so the pair is generated extractable once, exported as PKCS#8, imported twice as NON-extractable keys (ECDH
// deriveBits, ECDSA sign), and the exported bytes are overwritten with zeros. Only the two non-extractable CryptoKeys
// (structured-cloneable) and the public key reach IndexedDB: script running in the origin can use them, never read them.

import { base64urlEncode, concatBytes, toBytes, base64urlDecode } from './base64url.js';
import { registerPublicKey } from './hpke.js';

const subtle = globalThis.crypto.subtle;

/** Default IndexedDB database name. */
export const DEFAULT_DB_NAME = 'securepush';
const DB_VERSION = 1;
const STORE = 'records';

// --- DER: just enough to find the public key inside a P-256 PKCS#8 PrivateKeyInfo -------------------------------

function readTLV(bytes, offset) {
  if (offset + 2 > bytes.length) throw new TypeError('PKCS#8: truncated');
  const tag = bytes[offset];
  let length = bytes[offset + 1];
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count < 1 || count > 3 || offset + 2 + count > bytes.length) throw new TypeError('PKCS#8: bad length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[offset + 2 + i];
    header += count;
  }
  const start = offset + header;
  const end = start + length;
  if (end > bytes.length) throw new TypeError('PKCS#8: truncated');
  return { tag, start, end };
}

function children(bytes, start, end) {
  const out = [];
  for (let offset = start; offset < end; ) {
    const tlv = readTLV(bytes, offset);
    out.push(tlv);
    offset = tlv.end;
  }
  return out;
}

/**
 * The 65-byte public point stored in a P-256 PKCS#8 key (ECPrivateKey's optional `[1] publicKey`), or null when the
 * encoding leaves it out.
 */
export function publicKeyFromPKCS8(pkcs8) {
  const bytes = toBytes(pkcs8);
  const outer = readTLV(bytes, 0); // PrivateKeyInfo SEQUENCE
  const fields = children(bytes, outer.start, outer.end);
  const privateKeyOctets = fields.find((f) => f.tag === 0x04);
  if (!privateKeyOctets) return null;
  const ecPrivateKey = readTLV(bytes, privateKeyOctets.start); // ECPrivateKey SEQUENCE
  for (const field of children(bytes, ecPrivateKey.start, ecPrivateKey.end)) {
    if (field.tag !== 0xa1) continue; // [1] publicKey
    const bitString = readTLV(bytes, field.start);
    if (bitString.tag !== 0x03 || bytes[bitString.start] !== 0x00) return null;
    const point = bytes.slice(bitString.start + 1, bitString.end);
    return point.length === 65 && point[0] === 0x04 ? point : null;
  }
  return null;
}

/**
 * Imports a PKCS#8 P-256 private key twice, both NON-extractable: `ecdh` (deriveBits, for HPKE) and `ecdsa` (sign,
 * for device proofs). `publicKeyRaw` (65 bytes) is taken from the PKCS#8 when the encoding carries it (Chromium's,
 * Firefox's and Safari's exports do), else it must be given. The caller's bytes are left as they are unless `wipe`.
 * @returns {Promise<{ecdh: CryptoKey, ecdsa: CryptoKey, publicKeyRaw: Uint8Array}>}
 */
export async function importDeviceKeyPair(pkcs8Bytes, { publicKeyRaw, wipe = false } = {}) {
  const pkcs8 = toBytes(pkcs8Bytes);
  try {
    const pub = publicKeyRaw ? new Uint8Array(toBytes(publicKeyRaw)) : publicKeyFromPKCS8(pkcs8);
    if (!pub) throw new TypeError('importDeviceKeyPair: the PKCS#8 key has no public key; pass publicKeyRaw');
    const ecdh = await subtle.importKey('pkcs8', pkcs8, { name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
    const ecdsa = await subtle.importKey('pkcs8', pkcs8, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
    registerPublicKey(ecdh, pub);
    return { ecdh, ecdsa, publicKeyRaw: pub };
  } finally {
    if (wipe) pkcs8.fill(0);
  }
}

/**
 * A new device key: generated extractable (ECDSA P-256), exported once as PKCS#8, imported twice as non-extractable
 * keys, and the exported bytes overwritten with zeros. The extractable original is dropped (never stored).
 * @returns {Promise<{ecdh: CryptoKey, ecdsa: CryptoKey, publicKeyRaw: Uint8Array, publicKey: string}>}
 */
export async function generateDeviceKeyPair() {
  const pair = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const publicKeyRaw = new Uint8Array(await subtle.exportKey('raw', pair.publicKey));
  const pkcs8 = new Uint8Array(await subtle.exportKey('pkcs8', pair.privateKey));
  const keys = await importDeviceKeyPair(pkcs8, { publicKeyRaw, wipe: true });
  return { ...keys, publicKey: base64urlEncode(publicKeyRaw) };
}

/** Re-registers the public key of a device key read back from IndexedDB (structured clone gives new objects). */
export function adoptStoredDeviceKey(record) {
  if (!record || !record.ecdh || !record.ecdsa) return null;
  const publicKeyRaw = record.publicKeyRaw
    ? new Uint8Array(toBytes(record.publicKeyRaw))
    : record.publicKey
      ? base64urlDecode(record.publicKey)
      : null;
  if (!publicKeyRaw) return null;
  registerPublicKey(record.ecdh, publicKeyRaw);
  return { ...record, publicKeyRaw, publicKey: record.publicKey ?? base64urlEncode(publicKeyRaw) };
}

/** The public point as `devices.register` takes it (base64url without padding of the 65-byte point). */
export function encodePublicKey(publicKeyRaw) {
  return base64urlEncode(concatBytes(toBytes(publicKeyRaw)));
}

// --- IndexedDB ----------------------------------------------------------------------------------------------------

function promisify(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/**
 * A small key-value store in IndexedDB (database `dbName`, object store `records`), shared by the pages and the
 * service worker of one origin. Records the SDK keeps: `session` (tokens), `deviceKey` ({ecdh, ecdsa, publicKeyRaw,
 * publicKey}: the two non-extractable CryptoKeys), `device` (deviceId, platform, token), `config` (service URLs).
 */
export class KeyStore {
  #db;
  constructor(db, name) {
    this.#db = db;
    this.name = name;
  }

  /** Opens (creating when needed) the database. */
  static async open(dbName = DEFAULT_DB_NAME) {
    if (typeof indexedDB === 'undefined') throw new Error('IndexedDB is not available here');
    const request = indexedDB.open(dbName, DB_VERSION);
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(STORE)) db.createObjectStore(STORE);
    };
    const db = await promisify(request);
    // Let another context upgrade or delete the database: close ours, reopen lazily.
    const store = new KeyStore(db, dbName);
    db.onversionchange = () => {
      db.close();
      store.#db = null;
    };
    return store;
  }

  async #database() {
    if (!this.#db) {
      const reopened = await KeyStore.open(this.name);
      this.#db = reopened.#db;
    }
    return this.#db;
  }

  async #run(mode, action) {
    const db = await this.#database();
    const tx = db.transaction(STORE, mode);
    const done = new Promise((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
    });
    const request = action(tx.objectStore(STORE));
    const [result] = await Promise.all([promisify(request), done]);
    return result;
  }

  /** The record `name`, or undefined. */
  get(name) {
    return this.#run('readonly', (s) => s.get(name));
  }

  /** Stores `value` (structured clone: CryptoKeys included) as `name`. */
  put(name, value) {
    return this.#run('readwrite', (s) => s.put(value, name));
  }

  /** Deletes the record `name`. */
  delete(name) {
    return this.#run('readwrite', (s) => s.delete(name));
  }

  /** Deletes every record. */
  clear() {
    return this.#run('readwrite', (s) => s.clear());
  }

  /** Closes the database. */
  close() {
    this.#db?.close();
    this.#db = null;
  }
}

/** Opens the SDK's IndexedDB store. */
export function openKeyStore(dbName = DEFAULT_DB_NAME) {
  return KeyStore.open(dbName);
}

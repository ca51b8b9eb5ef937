// SecurePush browser SDK: HPKE (RFC 9180) base mode, single-shot open, for the one suite SecurePush seals with:
// DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-128-GCM (KEM 0x0010, KDF 0x0001, AEAD 0x0001).
//
// Built only on WebCrypto: ECDH (deriveBits 256) for the DH, HMAC-SHA256 for HKDF-Extract/Expand (WebCrypto's HKDF
// cannot split extract from expand, which HPKE's labeled functions need), AES-GCM for the AEAD.

import {
  base64urlDecode,
  base64urlEncode,
  concatBytes,
  toBytes,
  utf8Decode,
  utf8Encode,
} from './base64url.js';
import { SecurePushError, ErrorCodes } from './errors.js';

const subtle = globalThis.crypto.subtle;

const KEM_ID = 0x0010;
const KDF_ID = 0x0001;
const AEAD_ID = 0x0001;
const N_SECRET = 32; // DHKEM(P-256, HKDF-SHA256) Nsecret
const N_ENC = 65; // Nenc: an uncompressed P-256 point
const N_H = 32; // HKDF-SHA256 Nh
const N_K = 16; // AES-128-GCM Nk
const N_N = 12; // AES-128-GCM Nn
const N_T = 16; // AES-128-GCM Nt
const MODE_BASE = 0x00;

const HPKE_V1 = utf8Encode('HPKE-v1');

function i2osp(value, length) {
  const out = new Uint8Array(length);
  for (let i = length - 1, v = value; i >= 0; i--, v = Math.floor(v / 256)) out[i] = v & 0xff;
  return out;
}

/** suite_id of the DHKEM: "KEM" || I2OSP(kem_id, 2) (RFC 9180 §4.1). */
export const KEM_SUITE_ID = concatBytes(utf8Encode('KEM'), i2osp(KEM_ID, 2));
/** suite_id of the key schedule: "HPKE" || I2OSP(kem_id, 2) || I2OSP(kdf_id, 2) || I2OSP(aead_id, 2) (§5.1). */
export const HPKE_SUITE_ID = concatBytes(utf8Encode('HPKE'), i2osp(KEM_ID, 2), i2osp(KDF_ID, 2), i2osp(AEAD_ID, 2));

async function hmacSHA256(key, data) {
  // An empty HKDF salt means Nh zero bytes (RFC 5869 §2.2); WebCrypto refuses zero-length HMAC keys, and HMAC pads
  // keys with zeros anyway, so both are the same key.
  const keyBytes = key.length === 0 ? new Uint8Array(N_H) : key;
  const hmacKey = await subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', hmacKey, data));
}

/** HKDF-Extract(salt, ikm) with SHA-256 (RFC 5869 §2.2). */
export async function hkdfExtract(salt, ikm) {
  return hmacSHA256(toBytes(salt), toBytes(ikm));
}

/** HKDF-Expand(prk, info, L) with SHA-256 (RFC 5869 §2.3). */
export async function hkdfExpand(prk, info, length) {
  if (length > 255 * N_H) throw new RangeError('HKDF-Expand: length too large');
  const out = new Uint8Array(length);
  let previous = new Uint8Array(0);
  let filled = 0;
  for (let counter = 1; filled < length; counter++) {
    previous = await hmacSHA256(toBytes(prk), concatBytes(previous, toBytes(info), Uint8Array.of(counter)));
    const take = Math.min(previous.length, length - filled);
    out.set(previous.subarray(0, take), filled);
    filled += take;
  }
  return out;
}

/** LabeledExtract(salt, label, ikm) = Extract(salt, "HPKE-v1" || suite_id || label || ikm) (RFC 9180 §4). */
export async function labeledExtract(suiteId, salt, label, ikm) {
  return hkdfExtract(salt, concatBytes(HPKE_V1, suiteId, utf8Encode(label), toBytes(ikm)));
}

/** LabeledExpand(prk, label, info, L) = Expand(prk, I2OSP(L, 2) || "HPKE-v1" || suite_id || label || info, L). */
export async function labeledExpand(suiteId, prk, label, info, length) {
  const labeledInfo = concatBytes(i2osp(length, 2), HPKE_V1, suiteId, utf8Encode(label), toBytes(info));
  return hkdfExpand(prk, labeledInfo, length);
}

// Public keys of private CryptoKeys this module (or keystore.js) imported: a non-extractable private key cannot give
// its public key back, and DHKEM's kem_context needs it (pkRm).
const publicKeys = new WeakMap();

/** Remembers `publicKeyRaw` (65-byte uncompressed point) as the public key of `privateKey`. */
export function registerPublicKey(privateKey, publicKeyRaw) {
  publicKeys.set(privateKey, new Uint8Array(toBytes(publicKeyRaw)));
}

async function recipientPublicKeyRaw(privateKey, given) {
  if (given != null) return toBytes(given);
  const known = publicKeys.get(privateKey);
  if (known) return known;
  if (privateKey.extractable) {
    const jwk = await subtle.exportKey('jwk', privateKey);
    return concatBytes(Uint8Array.of(0x04), base64urlDecode(jwk.x), base64urlDecode(jwk.y));
  }
  throw new SecurePushError(
    ErrorCodes.invalidSealedCopy,
    'HPKE: the recipient public key is needed (pass recipientPublicKey) for a non-extractable private key',
  );
}

function checkPoint(bytes, what) {
  if (bytes.length !== N_ENC || bytes[0] !== 0x04) {
    throw new SecurePushError(ErrorCodes.invalidSealedCopy, `HPKE: ${what} is not an uncompressed P-256 point`);
  }
}

/**
 * Imports a raw P-256 private scalar `d` (32 bytes) as a WebCrypto key, wrapped as a JWK with the public point's x/y
 * (WebCrypto has no raw private-key import). Default: a non-extractable ECDH key for `deriveBits`;
 * `{algorithm: 'ECDSA'}` gives a signing key instead.
 */
export async function importRawPrivateKeyP256(dBytes, publicKeyRaw, { algorithm = 'ECDH', extractable = false } = {}) {
  const d = toBytes(dBytes);
  const pub = toBytes(publicKeyRaw);
  if (d.length !== 32) throw new TypeError('importRawPrivateKeyP256: d must be 32 bytes');
  checkPoint(pub, 'publicKeyRaw');
  const jwk = {
    kty: 'EC',
    crv: 'P-256',
    d: base64urlEncode(d),
    x: base64urlEncode(pub.subarray(1, 33)),
    y: base64urlEncode(pub.subarray(33, 65)),
    ext: extractable,
  };
  const isECDH = algorithm === 'ECDH';
  const key = await subtle.importKey(
    'jwk',
    jwk,
    isECDH ? { name: 'ECDH', namedCurve: 'P-256' } : { name: 'ECDSA', namedCurve: 'P-256' },
    extractable,
    isECDH ? ['deriveBits'] : ['sign'],
  );
  registerPublicKey(key, pub);
  return key;
}

/**
 * DHKEM(P-256, HKDF-SHA256) Decap (RFC 9180 §4.1): the shared secret for `enc` (65 bytes) and the recipient's key.
 */
export async function decap({ recipientPrivateKey, recipientPublicKey, enc }) {
  const encBytes = toBytes(enc);
  checkPoint(encBytes, 'enc');
  const pkRm = await recipientPublicKeyRaw(recipientPrivateKey, recipientPublicKey);
  checkPoint(pkRm, 'the recipient public key');
  let pkE;
  try {
    pkE = await subtle.importKey('raw', encBytes, { name: 'ECDH', namedCurve: 'P-256' }, false, []);
  } catch {
    throw new SecurePushError(ErrorCodes.invalidSealedCopy, 'HPKE: enc is not a point on P-256');
  }
  const dh = new Uint8Array(await subtle.deriveBits({ name: 'ECDH', public: pkE }, recipientPrivateKey, 256));
  const kemContext = concatBytes(encBytes, pkRm);
  // ExtractAndExpand(dh, kem_context)
  const eaePrk = await labeledExtract(KEM_SUITE_ID, new Uint8Array(0), 'eae_prk', dh);
  dh.fill(0);
  return labeledExpand(KEM_SUITE_ID, eaePrk, 'shared_secret', kemContext, N_SECRET);
}

/** KeySchedule in base mode (RFC 9180 §5.1): `{key, baseNonce}` from the shared secret and `info`. */
export async function keyScheduleBase(sharedSecret, info) {
  const empty = new Uint8Array(0);
  const pskIdHash = await labeledExtract(HPKE_SUITE_ID, empty, 'psk_id_hash', empty);
  const infoHash = await labeledExtract(HPKE_SUITE_ID, empty, 'info_hash', toBytes(info));
  const keyScheduleContext = concatBytes(Uint8Array.of(MODE_BASE), pskIdHash, infoHash);
  const secret = await labeledExtract(HPKE_SUITE_ID, toBytes(sharedSecret), 'secret', empty);
  const key = await labeledExpand(HPKE_SUITE_ID, secret, 'key', keyScheduleContext, N_K);
  const baseNonce = await labeledExpand(HPKE_SUITE_ID, secret, 'base_nonce', keyScheduleContext, N_N);
  secret.fill(0);
  return { key, baseNonce };
}

/**
 * HPKE base-mode single-shot open (sequence 0, so the nonce is base_nonce): the plaintext as a Uint8Array.
 * Throws SecurePushError 'invalid-sealed-copy' when the ciphertext does not open (tampered, another key, info or aad).
 * @param {{recipientPrivateKey: CryptoKey, recipientPublicKey?: Uint8Array, enc: Uint8Array, ciphertext: Uint8Array,
 *          info: Uint8Array, aad: Uint8Array}} params
 */
export async function hpkeOpenBase({ recipientPrivateKey, recipientPublicKey, enc, ciphertext, info, aad }) {
  const ct = toBytes(ciphertext);
  if (ct.length < N_T) throw new SecurePushError(ErrorCodes.invalidSealedCopy, 'HPKE: ciphertext shorter than its tag');
  const sharedSecret = await decap({ recipientPrivateKey, recipientPublicKey, enc });
  const { key, baseNonce } = await keyScheduleBase(sharedSecret, info ?? new Uint8Array(0));
  sharedSecret.fill(0);
  const aesKey = await subtle.importKey('raw', key, { name: 'AES-GCM' }, false, ['decrypt']);
  key.fill(0);
  try {
    const plaintext = await subtle.decrypt(
      { name: 'AES-GCM', iv: baseNonce, additionalData: toBytes(aad ?? new Uint8Array(0)), tagLength: 128 },
      aesKey,
      ct,
    );
    return new Uint8Array(plaintext);
  } catch {
    throw new SecurePushError(ErrorCodes.invalidSealedCopy, 'HPKE: the sealed copy does not open with this key');
  }
}

/** The HPKE `info` of a sealed copy: UTF-8 of "securepush/v1 " + notificationId + " " + deviceId (docs/rpc.md). */
export function sealedCopyInfo(notificationId, deviceId) {
  return utf8Encode(`securepush/v1 ${notificationId} ${deviceId}`);
}

/** The AEAD associated data of a sealed copy: UTF-8 of the notification id. */
export function sealedCopyAAD(notificationId) {
  return utf8Encode(notificationId);
}

/**
 * Opens a sealed copy from `store.get` (`sealed.enc`, `sealed.ciphertext`: base64url without padding) for
 * `notificationId` and `deviceId`; returns the payload string. Throws SecurePushError 'invalid-sealed-copy' for a
 * malformed, tampered or foreign copy, or one that is not UTF-8; 'oversized' past `maxPlaintextBytes`.
 */
export async function openSealedCopy({
  privateKey,
  publicKey,
  notificationId,
  deviceId,
  enc,
  ciphertext,
  maxPlaintextBytes = Infinity,
}) {
  if (typeof enc !== 'string' || typeof ciphertext !== 'string') {
    throw new SecurePushError(ErrorCodes.invalidSealedCopy, 'sealed copy: enc and ciphertext must be strings');
  }
  // Refuse oversized copies before decoding anything (4 base64 characters per 3 bytes).
  if (Number.isFinite(maxPlaintextBytes) && ciphertext.length > Math.ceil(((maxPlaintextBytes + N_T) * 4) / 3)) {
    throw new SecurePushError(ErrorCodes.oversized, 'sealed copy: larger than the payload limit');
  }
  let encBytes;
  let ctBytes;
  try {
    encBytes = base64urlDecode(enc);
    ctBytes = base64urlDecode(ciphertext);
  } catch {
    throw new SecurePushError(ErrorCodes.invalidSealedCopy, 'sealed copy: enc or ciphertext is not base64url');
  }
  const plaintext = await hpkeOpenBase({
    recipientPrivateKey: privateKey,
    recipientPublicKey: publicKey,
    enc: encBytes,
    ciphertext: ctBytes,
    info: sealedCopyInfo(notificationId, deviceId),
    aad: sealedCopyAAD(notificationId),
  });
  if (plaintext.length > maxPlaintextBytes) {
    throw new SecurePushError(ErrorCodes.oversized, 'sealed copy: larger than the payload limit');
  }
  try {
    return utf8Decode(plaintext);
  } catch {
    throw new SecurePushError(ErrorCodes.invalidSealedCopy, 'sealed copy: the payload is not UTF-8');
  } finally {
    plaintext.fill(0);
  }
}

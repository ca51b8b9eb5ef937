// SecurePush browser SDK: device proofs (docs/rpc.md, "Sealed notifications"): the `SecurePush-Device-Proof` header,
// a compact JWS modelled on RFC 9449 DPoP, signed ES256 with the device's non-extractable ECDSA key.

import { base64urlEncode, randomBytes, utf8Encode } from './base64url.js';

/** The HTTP header that carries a proof. */
export const DEVICE_PROOF_HEADER = 'SecurePush-Device-Proof';
/** The JWS header, byte for byte. */
export const DEVICE_PROOF_JWS_HEADER = '{"typ":"securepush-proof+jwt","alg":"ES256"}';

/**
 * A proof for fetching `notificationId` as `deviceId`, made at `now` (a Date or milliseconds; default the current
 * time): `base64url(header).base64url(claims).base64url(r‖s)` with claims `{nid, did, iat, jti}` and a fresh 16-byte
 * random `jti`. WebCrypto's ECDSA signature is already the JOSE raw r‖s form (64 bytes). Make a new proof for every
 * fetch: each is accepted once.
 * @param {{ecdsaKey: CryptoKey, notificationId: string, deviceId: string, now?: Date|number}} params
 * @returns {Promise<string>}
 */
export async function makeDeviceProof({ ecdsaKey, notificationId, deviceId, now = Date.now() }) {
  if (!ecdsaKey) throw new TypeError('makeDeviceProof: ecdsaKey is required');
  const millis = now instanceof Date ? now.getTime() : Number(now);
  const claims = {
    nid: String(notificationId),
    did: String(deviceId),
    iat: Math.floor(millis / 1000),
    jti: base64urlEncode(randomBytes(16)),
  };
  const signingInput =
    base64urlEncode(utf8Encode(DEVICE_PROOF_JWS_HEADER)) + '.' + base64urlEncode(utf8Encode(JSON.stringify(claims)));
  const signature = await crypto.subtle.sign(
    { name: 'ECDSA', hash: 'SHA-256' },
    ecdsaKey,
    utf8Encode(signingInput),
  );
  return signingInput + '.' + base64urlEncode(new Uint8Array(signature));
}

"""HPKE in the browser: the SDK's opening code (Clients/Web/sdk/hpke.js, keystore.js) in real Chromium.

- RFC 9180 Appendix A.3 (DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-128-GCM, base mode) opens;
- copies sealed by our store (Tests/Fixtures/sealed-copies.json, shared with the Swift tests) open with the device
  key imported by `importDeviceKeyPair`, whose two keys are non-extractable;
- a tampered ciphertext or `enc`, another device's copy, a wrong `info` and a wrong `aad` do not.

Served by a small Python server from Clients/Web, so no SecurePush service is needed.
"""

import json
import os
import unittest

import harness

COMMON_JS = """
window.__t = window.__t || (async () => {
  const hpke = await import('/sdk/hpke.js');
  const keystore = await import('/sdk/keystore.js');
  const b64 = await import('/sdk/base64url.js');
  const hex = (h) => Uint8Array.from((h.match(/../g) || []).map((x) => parseInt(x, 16)));
  const utf8 = (s) => new TextEncoder().encode(s);
  const toHex = (u) => Array.from(u, (x) => x.toString(16).padStart(2, '0')).join('');
  // Runs `f`; {ok: true, value} or {ok: false, name, code, message}.
  const attempt = async (f) => {
    try { return {ok: true, value: await f()}; }
    catch (e) { return {ok: false, name: e && e.name, code: e && e.code, message: String(e && e.message || e)}; }
  };
  const flip = (bytes, index) => { const c = Uint8Array.from(bytes); c[index] ^= 0x01; return c; };
  return {hpke, keystore, b64, hex, utf8, toHex, attempt, flip};
})();
"""


class HPKEInBrowserTests(harness.StaticPageTestCase, unittest.TestCase):
    def setUp(self):
        super().setUp()
        self.page.add_script_tag(content=COMMON_JS)

    def fixture(self):
        self.assertTrue(os.path.exists(harness.FIXTURE),
                        f"{harness.FIXTURE} is missing (the store's sealed copies, written by the Swift side)")
        with open(harness.FIXTURE) as f:
            return json.load(f)

    def test_rfc9180_a3_vector_opens_and_altered_inputs_do_not(self):
        with open(os.path.join(harness.WEB, "test-vectors", "rfc9180-a3.json")) as f:
            vector = json.load(f)
        self.assertEqual((vector["mode"], vector["kem_id"], vector["kdf_id"], vector["aead_id"]), (0, 16, 1, 1))
        result = self.page.evaluate("""async (v) => {
          const {hpke, hex, toHex, attempt, flip} = await window.__t;
          const e = v.encryption;
          const key = await hpke.importRawPrivateKeyP256(hex(v.skRm), hex(v.pkRm));
          const open = (over) => attempt(async () => toHex(await hpke.hpkeOpenBase({
            recipientPrivateKey: key, enc: hex(v.enc), ciphertext: hex(e.ct), info: hex(v.info), aad: hex(e.aad),
            ...over})));
          const shared = await attempt(async () => toHex(await hpke.decap({recipientPrivateKey: key, enc: hex(v.enc)})));
          return {
            extractable: key.extractable,
            sharedSecret: shared,
            opened: await open({}),
            tamperedCiphertext: await open({ciphertext: flip(hex(e.ct), 3)}),
            tamperedTag: await open({ciphertext: flip(hex(e.ct), hex(e.ct).length - 1)}),
            tamperedEnc: await open({enc: flip(hex(v.enc), 40)}),
            wrongInfo: await open({info: flip(hex(v.info), 0)}),
            wrongAad: await open({aad: flip(hex(e.aad), 0)}),
          };
        }""", vector)
        self.assertIs(result["extractable"], False)
        self.assertEqual(result["sharedSecret"], {"ok": True, "value": vector["shared_secret"]})
        self.assertEqual(result["opened"], {"ok": True, "value": vector["encryption"]["pt"]})
        for case in ("tamperedCiphertext", "tamperedTag", "tamperedEnc", "wrongInfo", "wrongAad"):
            with self.subTest(case):
                self.assertFalse(result[case]["ok"], f"{case} opened: {result[case]}")
                self.assertEqual(result[case]["code"], "invalid-sealed-copy", result[case])

    def test_store_sealed_copies_open_with_the_imported_non_extractable_device_key(self):
        fixture = self.fixture()
        self.assertTrue(fixture["copies"], "the fixture has no copies")
        result = self.page.evaluate("""async (f) => {
          const {hpke, keystore, b64, attempt} = await window.__t;
          const keys = await keystore.importDeviceKeyPair(b64.base64urlDecode(f.devicePrivateKeyPKCS8));
          const opened = [];
          for (const c of f.copies) {
            opened.push(await attempt(() => hpke.openSealedCopy({privateKey: keys.ecdh, notificationId: c.notificationId,
              deviceId: c.deviceId, enc: c.enc, ciphertext: c.ciphertext})));
          }
          return {
            publicKey: b64.base64urlEncode(keys.publicKeyRaw),
            ecdh: {extractable: keys.ecdh.extractable, type: keys.ecdh.type, algorithm: keys.ecdh.algorithm.name,
                   usages: keys.ecdh.usages},
            ecdsa: {extractable: keys.ecdsa.extractable, type: keys.ecdsa.type, algorithm: keys.ecdsa.algorithm.name,
                    usages: keys.ecdsa.usages},
            exportEcdh: await attempt(() => crypto.subtle.exportKey('pkcs8', keys.ecdh)),
            exportEcdsa: await attempt(() => crypto.subtle.exportKey('jwk', keys.ecdsa)),
            opened,
          };
        }""", fixture)
        self.assertEqual(result["publicKey"], fixture["devicePublicKey"])
        self.assertEqual(result["ecdh"], {"extractable": False, "type": "private", "algorithm": "ECDH",
                                          "usages": ["deriveBits"]})
        self.assertEqual(result["ecdsa"], {"extractable": False, "type": "private", "algorithm": "ECDSA",
                                           "usages": ["sign"]})
        self.assertFalse(result["exportEcdh"]["ok"], result["exportEcdh"])
        self.assertFalse(result["exportEcdsa"]["ok"], result["exportEcdsa"])
        for copy, opened in zip(fixture["copies"], result["opened"]):
            with self.subTest(notificationId=copy["notificationId"]):
                self.assertEqual(opened, {"ok": True, "value": copy["plaintext"]})

    def test_tampered_foreign_and_misaddressed_copies_do_not_open(self):
        fixture = self.fixture()
        result = self.page.evaluate("""async (f) => {
          const {hpke, keystore, b64, utf8, attempt, flip} = await window.__t;
          const keys = await keystore.importDeviceKeyPair(b64.base64urlDecode(f.devicePrivateKeyPKCS8));
          const c = f.copies[0];
          const other = f.otherDevice;
          const otherCopy = other.copies ? other.copies[0] : other;
          const open = (over) => attempt(() => hpke.openSealedCopy({privateKey: keys.ecdh,
            notificationId: c.notificationId, deviceId: c.deviceId, enc: c.enc, ciphertext: c.ciphertext, ...over}));
          const ct = b64.base64urlDecode(c.ciphertext);
          const anotherNotification = f.copies.find((x) => x.notificationId !== c.notificationId);
          return {
            control: await open({}),
            tamperedCiphertext: await open({ciphertext: b64.base64urlEncode(flip(ct, 0))}),
            tamperedTag: await open({ciphertext: b64.base64urlEncode(flip(ct, ct.length - 1))}),
            truncated: await open({ciphertext: b64.base64urlEncode(ct.subarray(0, ct.length - 1))}),
            tamperedEnc: await open({enc: b64.base64urlEncode(flip(b64.base64urlDecode(c.enc), 64))}),
            // Another device's copy, under its own device id and under ours.
            otherDevicesCopy: await open({notificationId: otherCopy.notificationId,
              deviceId: otherCopy.deviceId ?? other.deviceId, enc: otherCopy.enc, ciphertext: otherCopy.ciphertext}),
            otherDevicesCopyAsOurs: await open({notificationId: otherCopy.notificationId, enc: otherCopy.enc,
              ciphertext: otherCopy.ciphertext}),
            // Our copy, presented for another device (wrong info) or another notification (wrong info and aad).
            wrongDeviceInInfo: await open({deviceId: other.deviceId}),
            otherNotification: anotherNotification ? await open({notificationId: anotherNotification.notificationId})
                                                   : {ok: false, code: 'invalid-sealed-copy', skipped: true},
            // hpkeOpenBase with everything right but `info`: one character of the device id changed.
            wrongInfo: await attempt(() => hpke.hpkeOpenBase({recipientPrivateKey: keys.ecdh,
              enc: b64.base64urlDecode(c.enc), ciphertext: ct,
              info: utf8('securepush/v1 ' + c.notificationId + ' ' + c.deviceId.replace(/.$/, (x) => x === '0' ? '1' : '0')),
              aad: utf8(c.notificationId)})),
            wrongAad: await attempt(() => hpke.hpkeOpenBase({recipientPrivateKey: keys.ecdh,
              enc: b64.base64urlDecode(c.enc), ciphertext: ct, info: hpke.sealedCopyInfo(c.notificationId, c.deviceId),
              aad: utf8(c.notificationId + ' ')})),
          };
        }""", fixture)
        self.assertEqual(result.pop("control"), {"ok": True, "value": fixture["copies"][0]["plaintext"]})
        for case, outcome in result.items():
            with self.subTest(case):
                self.assertFalse(outcome["ok"], f"{case} opened: {outcome}")
                self.assertEqual(outcome["code"], "invalid-sealed-copy", f"{case}: {outcome}")


if __name__ == "__main__":
    unittest.main()

internal import CPKCS11

/// An ECDSA P-256 private key inside a token: signs there (`CKM_ECDSA` over a SHA-256 digest) and never leaves it.
public struct PKCS11ECPrivateKey: Sendable {
    /// The token holding the key.
    public let token: PKCS11Token
    /// The public key as an uncompressed SEC 1 point (`0x04 ‖ x ‖ y`, 65 bytes), read from the public key object of
    /// the same label or id.
    public let publicKeyX963: [UInt8]
    let object: PKCS11KeyObject

    /// DER of the P-256 curve's OID (1.2.840.10045.3.1.7), the `CKA_EC_PARAMS` of its keys.
    static let p256Parameters: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]

    /// The private key `uri` names in `token`, with its public half; throws when either is missing or is not P-256.
    public static func find(_ uri: PKCS11URI, in token: PKCS11Token) throws(PKCS11Error) -> PKCS11ECPrivateKey {
        try token.run("find") { session, functions throws(PKCS11Error) in
            let naming = uri.objectTemplate
            let template = naming + [PKCS11Attribute(CKA_CLASS, ulong: CKO_PRIVATE_KEY)]
            let handle = try findSingleObject(
                session: session, functions: functions, template: template,
                missing: "no private key \(uri.objectName) in token '\(uri.token)'",
                ambiguous: "more than one private key \(uri.objectName): add 'id='")
            // The public half is the public object with the private key's CKA_ID (and the URI's label, when given):
            // exactly one, so a leftover public key of the same label cannot stand in for it.
            let id = try attributeValue(session: session, functions: functions, object: handle, type: CKA_ID)
            let publicTemplate =
                (uri.object.map { [PKCS11Attribute(CKA_LABEL, string: $0)] } ?? [])
                + [PKCS11Attribute(CKA_ID, bytes: id), PKCS11Attribute(CKA_CLASS, ulong: CKO_PUBLIC_KEY)]
            let publicHandle = try findSingleObject(
                session: session, functions: functions, template: publicTemplate,
                missing: "no public key \(uri.objectName) beside the private key",
                ambiguous: "more than one public key \(uri.objectName) with the private key's CKA_ID")
            let parameters = try attributeValue(
                session: session, functions: functions, object: publicHandle, type: CKA_EC_PARAMS)
            guard parameters == p256Parameters else {
                throw PKCS11Error("find key", reason: "the key \(uri.objectName) is not on the P-256 curve")
            }
            let point = try attributeValue(
                session: session, functions: functions, object: publicHandle, type: CKA_EC_POINT)
            guard let x963 = uncompressedPoint(point) else {
                throw PKCS11Error("find key", reason: "the public key \(uri.objectName) is not an uncompressed point")
            }
            return PKCS11ECPrivateKey(
                token: token, publicKeyX963: x963,
                object: PKCS11KeyObject(
                    tokenLabel: token.label, name: uri.objectName, template: template, handle: handle))
        }
    }

    private init(token: PKCS11Token, publicKeyX963: [UInt8], object: PKCS11KeyObject) {
        self.token = token
        self.publicKeyX963 = publicKeyX963
        self.object = object
    }

    /// `ok` when the key still signs in the module (a probe signature, counted as operation `probe`); otherwise the
    /// reason, e.g. `token 'securepush' no longer holds key 'auth-signing'`. Blocks for the module's round trip.
    public func probe() -> String {
        do throws(PKCS11Error) {
            _ = try sign(digest: [UInt8](repeating: 0, count: 32), operation: "probe")
            return "ok"
        } catch {
            return error.reason ?? error.description
        }
    }

    /// The raw signature `r ‖ s` (32 bytes each, as JOSE's ES256 wants) of the SHA-256 `digest`.
    public func sign(digest: [UInt8]) throws(PKCS11Error) -> [UInt8] {
        try sign(digest: digest, operation: "sign")
    }

    func sign(digest: [UInt8], operation: String) throws(PKCS11Error) -> [UInt8] {
        try token.run(operation) { session, functions throws(PKCS11Error) in
            var mechanism = ck_mechanism(mechanism: CKM_ECDSA, parameter: nil, parameter_len: 0)
            try object.use(session: session, functions: functions) { (handle) throws(PKCS11Error) in
                try check("C_SignInit", functions.pointee.C_SignInit!(session, &mechanism, handle))
            }
            // PKCS#11 gives ECDSA signatures as r ‖ s, each as long as the order (32 bytes on P-256).
            var signature = [UInt8](repeating: 0, count: 64)
            var length = UInt(signature.count)
            var digest = digest
            try check("C_Sign", functions.pointee.C_Sign!(session, &digest, UInt(digest.count), &signature, &length))
            guard length == 64 else { throw PKCS11Error("C_Sign", reason: "a signature of \(length) bytes, not 64") }
            return signature
        }
    }

    /// The key's `CKA_SENSITIVE` and `CKA_EXTRACTABLE`: a key that stays in the module is sensitive and not
    /// extractable.
    public func protection() throws(PKCS11Error) -> (sensitive: Bool, extractable: Bool) {
        try token.run("find") { session, functions throws(PKCS11Error) in
            try object.use(session: session, functions: functions) { (handle) throws(PKCS11Error) in
                let sensitive = try attributeValue(
                    session: session, functions: functions, object: handle, type: CKA_SENSITIVE)
                let extractable = try attributeValue(
                    session: session, functions: functions, object: handle, type: CKA_EXTRACTABLE)
                return (sensitive.first == 1, extractable.first == 1)
            }
        }
    }

    /// `CKA_EC_POINT` is a DER OCTET STRING holding the point (PKCS#11 2.40); some modules give the bare point.
    static func uncompressedPoint(_ value: [UInt8]) -> [UInt8]? {
        if value.count == 65, value[0] == 0x04 { return value }
        if value.count == 67, value[0] == 0x04, value[1] == 65, value[2] == 0x04 { return Array(value[2...]) }
        return nil
    }
}

extension PKCS11URI {
    /// The template attributes naming the object: its label and/or id.
    var objectTemplate: [PKCS11Attribute] {
        var template: [PKCS11Attribute] = []
        if let object { template.append(PKCS11Attribute(CKA_LABEL, string: object)) }
        if let id { template.append(PKCS11Attribute(CKA_ID, bytes: id)) }
        return template
    }

    /// How errors name the object: `'auth-signing'` or `id 0a1b`.
    var objectName: String {
        if let object { return "'\(object)'" }
        let digits = Array("0123456789abcdef")
        return "id " + String((id ?? []).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}

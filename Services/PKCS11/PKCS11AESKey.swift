internal import CPKCS11

/// An AES-256 key inside a token that wraps other keys: AES-GCM inside the module (`CKM_AES_GCM`), the key never
/// leaving it. Wrapped keys are `nonce (12) ‖ ciphertext ‖ tag (16)`; the associated data binds each to what it is.
public struct PKCS11AESKey: Sendable {
    /// The token holding the key.
    public let token: PKCS11Token
    let object: PKCS11KeyObject

    /// Bytes of a GCM nonce and tag.
    static let nonceCount = 12
    static let tagCount = 16

    /// The secret key `uri` names in `token`; throws when it is missing or not AES.
    public static func find(_ uri: PKCS11URI, in token: PKCS11Token) throws(PKCS11Error) -> PKCS11AESKey {
        try token.run("find") { session, functions throws(PKCS11Error) in
            let template = uri.objectTemplate + [PKCS11Attribute(CKA_CLASS, ulong: CKO_SECRET_KEY)]
            let handle = try findSingleObject(
                session: session, functions: functions, template: template,
                missing: "no secret key \(uri.objectName) in token '\(uri.token)'",
                ambiguous: "more than one secret key \(uri.objectName): add 'id='")
            let type = try attributeValue(session: session, functions: functions, object: handle, type: CKA_KEY_TYPE)
            guard type == withUnsafeBytes(of: CKK_AES, Array.init) else {
                throw PKCS11Error("find key", reason: "the key \(uri.objectName) is not an AES key")
            }
            return PKCS11AESKey(
                token: token,
                object: PKCS11KeyObject(
                    tokenLabel: token.label, name: uri.objectName, template: template, handle: handle))
        }
    }

    private init(token: PKCS11Token, object: PKCS11KeyObject) {
        self.token = token
        self.object = object
    }

    /// `ok` when the key still encrypts in the module (a probe, counted as operation `probe`); otherwise the reason.
    /// Blocks for the module's round trip.
    public func probe() -> String {
        do throws(PKCS11Error) {
            _ = try seal([UInt8](repeating: 0, count: 32), associatedData: [], operation: "probe")
            return "ok"
        } catch {
            return error.reason ?? error.description
        }
    }

    /// `plaintext` encrypted and authenticated with `associatedData`, under a fresh random nonce.
    public func seal(_ plaintext: [UInt8], associatedData: [UInt8]) throws(PKCS11Error) -> [UInt8] {
        try seal(plaintext, associatedData: associatedData, operation: "encrypt")
    }

    func seal(_ plaintext: [UInt8], associatedData: [UInt8], operation: String) throws(PKCS11Error) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<Self.nonceCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let (usedNonce, sealed) = try token.run(operation) { session, functions throws(PKCS11Error) in
            try gcm(session: session, functions: functions, nonce: nonce, associatedData: associatedData) {
                (mechanism) throws(PKCS11Error) in
                try object.use(session: session, functions: functions) { (handle) throws(PKCS11Error) in
                    try check("C_EncryptInit", functions.pointee.C_EncryptInit!(session, mechanism, handle))
                }
                var input = plaintext
                var output = [UInt8](repeating: 0, count: plaintext.count + Self.tagCount)
                var length = UInt(output.count)
                try check(
                    "C_Encrypt",
                    functions.pointee.C_Encrypt!(session, &input, UInt(input.count), &output, &length))
                return Array(output.prefix(Int(length)))
            }
        }
        // Stored with the nonce the module used: some modules (FIPS mode) write their own into the parameters.
        return usedNonce + sealed
    }

    /// The plaintext of `sealed` (from ``seal(_:associatedData:)`` with the same associated data); throws
    /// `CKR_ENCRYPTED_DATA_INVALID` when it was altered or sealed for something else.
    public func open(_ sealed: [UInt8], associatedData: [UInt8]) throws(PKCS11Error) -> [UInt8] {
        guard sealed.count >= Self.nonceCount + Self.tagCount else {
            throw PKCS11Error("C_Decrypt", code: CKR_ENCRYPTED_DATA_LEN_RANGE)
        }
        let nonce = Array(sealed.prefix(Self.nonceCount))
        return try token.run("decrypt") { session, functions throws(PKCS11Error) in
            let (_, plaintext) =
                try gcm(session: session, functions: functions, nonce: nonce, associatedData: associatedData) {
                    (mechanism) throws(PKCS11Error) in
                    try object.use(session: session, functions: functions) { (handle) throws(PKCS11Error) in
                        try check("C_DecryptInit", functions.pointee.C_DecryptInit!(session, mechanism, handle))
                    }
                    var input = Array(sealed.dropFirst(Self.nonceCount))
                    var output = [UInt8](repeating: 0, count: input.count)
                    var length = UInt(output.count)
                    let rv = functions.pointee.C_Decrypt!(session, &input, UInt(input.count), &output, &length)
                    // The operation ended with the call (PKCS#11 5.8), so the session is reusable either way. A tag that
                    // does not verify is CKR_ENCRYPTED_DATA_INVALID in the specification but CKR_GENERAL_ERROR in
                    // SoftHSM2: either way it is the data's fault, not the module's.
                    if rv == CKR_ENCRYPTED_DATA_INVALID || rv == CKR_GENERAL_ERROR {
                        throw PKCS11Error(
                            "C_Decrypt",
                            reason: "it does not open under this key (altered, or wrapped by another key; the module "
                                + "answered \(PKCS11Error.name(of: rv)))")
                    }
                    try check("C_Decrypt", rv)
                    return Array(output.prefix(Int(length)))
                }
            return plaintext
        }
    }

    /// Calls `body` with a `CKM_AES_GCM` mechanism for `nonce`, `associatedData` and a 128-bit tag; returns the
    /// nonce as the parameters hold it after `body` (the one the module used) and `body`'s result.
    private func gcm<T>(
        session: ck_session_handle_t, functions: UnsafeMutablePointer<ck_function_list>, nonce: [UInt8],
        associatedData: [UInt8], _ body: (UnsafeMutablePointer<ck_mechanism>) throws(PKCS11Error) -> T
    ) throws(PKCS11Error) -> (nonce: [UInt8], result: T) {
        // One allocation holding the nonce and the associated data, valid during `body`.
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: max(nonce.count + associatedData.count, 1), alignment: 8)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: nonce)
        UnsafeMutableRawBufferPointer(rebasing: buffer[nonce.count...]).copyBytes(from: associatedData)
        let bytes = buffer.bindMemory(to: UInt8.self)
        let parameters = UnsafeMutablePointer<ck_gcm_params>.allocate(capacity: 1)
        defer { parameters.deallocate() }
        parameters.initialize(
            to: ck_gcm_params(
                iv_ptr: bytes.baseAddress, iv_len: UInt(nonce.count), iv_bits: UInt(nonce.count * 8),
                aad_ptr: associatedData.isEmpty ? nil : bytes.baseAddress! + nonce.count,
                aad_len: UInt(associatedData.count), tag_bits: UInt(Self.tagCount * 8)))
        var mechanism = ck_mechanism(
            mechanism: CKM_AES_GCM, parameter: parameters, parameter_len: UInt(MemoryLayout<ck_gcm_params>.size))
        let result = try body(&mechanism)
        return (Array(bytes.prefix(nonce.count)), result)
    }
}

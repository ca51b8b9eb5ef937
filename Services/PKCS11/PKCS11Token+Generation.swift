internal import CPKCS11

extension PKCS11Token {
    /// Generates an ECDSA P-256 key pair labelled `label` in the token (`securepush hsm keygen`): the private key is
    /// sensitive and not extractable, so it signs inside the module and is never read out. Refuses when an object
    /// with that label exists.
    public func generateECKeyPair(label: String) throws(PKCS11Error) -> PKCS11ECPrivateKey {
        try access.exclusive { () throws(PKCS11Error) in try exclusivelyGenerateECKeyPair(label: label) }
    }

    private func exclusivelyGenerateECKeyPair(label: String) throws(PKCS11Error) -> PKCS11ECPrivateKey {
        try refuseExisting(label: label)
        _ = try run("generate") { session, functions throws(PKCS11Error) in
            let id = Array(label.utf8)
            let publicTemplate = [
                PKCS11Attribute(CKA_TOKEN, true), PKCS11Attribute(CKA_PRIVATE, false),
                PKCS11Attribute(CKA_VERIFY, true), PKCS11Attribute(CKA_LABEL, string: label),
                PKCS11Attribute(CKA_ID, bytes: id),
                PKCS11Attribute(CKA_EC_PARAMS, bytes: PKCS11ECPrivateKey.p256Parameters),
            ]
            let privateTemplate = [
                PKCS11Attribute(CKA_TOKEN, true), PKCS11Attribute(CKA_PRIVATE, true),
                PKCS11Attribute(CKA_SENSITIVE, true), PKCS11Attribute(CKA_EXTRACTABLE, false),
                PKCS11Attribute(CKA_SIGN, true), PKCS11Attribute(CKA_LABEL, string: label),
                PKCS11Attribute(CKA_ID, bytes: id),
            ]
            var mechanism = ck_mechanism(mechanism: CKM_EC_KEY_PAIR_GEN, parameter: nil, parameter_len: 0)
            var publicKey: ck_object_handle_t = 0
            var privateKey: ck_object_handle_t = 0
            try withTemplate(publicTemplate) { (publicAttributes, publicCount) throws(PKCS11Error) in
                try withTemplate(privateTemplate) { (privateAttributes, privateCount) throws(PKCS11Error) in
                    try check(
                        "C_GenerateKeyPair",
                        functions.pointee.C_GenerateKeyPair!(
                            session, &mechanism, publicAttributes, publicCount, privateAttributes, privateCount,
                            &publicKey, &privateKey))
                }
            }
        }
        return try PKCS11ECPrivateKey.find(PKCS11URI(token: self.label, object: label), in: self)
    }

    /// Generates an AES-256 key labelled `label` in the token, sensitive and not extractable, that encrypts and
    /// decrypts (wraps the data keys). Refuses when an object with that label exists.
    public func generateAESKey(label: String) throws(PKCS11Error) -> PKCS11AESKey {
        try access.exclusive { () throws(PKCS11Error) in try exclusivelyGenerateAESKey(label: label) }
    }

    private func exclusivelyGenerateAESKey(label: String) throws(PKCS11Error) -> PKCS11AESKey {
        try refuseExisting(label: label)
        _ = try run("generate") { session, functions throws(PKCS11Error) in
            let template = [
                PKCS11Attribute(CKA_CLASS, ulong: CKO_SECRET_KEY), PKCS11Attribute(CKA_KEY_TYPE, ulong: CKK_AES),
                PKCS11Attribute(CKA_VALUE_LEN, ulong: 32), PKCS11Attribute(CKA_TOKEN, true),
                PKCS11Attribute(CKA_PRIVATE, true), PKCS11Attribute(CKA_SENSITIVE, true),
                PKCS11Attribute(CKA_EXTRACTABLE, false), PKCS11Attribute(CKA_ENCRYPT, true),
                PKCS11Attribute(CKA_DECRYPT, true), PKCS11Attribute(CKA_LABEL, string: label),
                PKCS11Attribute(CKA_ID, bytes: Array(label.utf8)),
            ]
            var mechanism = ck_mechanism(mechanism: CKM_AES_KEY_GEN, parameter: nil, parameter_len: 0)
            var key: ck_object_handle_t = 0
            try withTemplate(template) { (attributes, count) throws(PKCS11Error) in
                try check(
                    "C_GenerateKey", functions.pointee.C_GenerateKey!(session, &mechanism, attributes, count, &key))
            }
        }
        return try PKCS11AESKey.find(PKCS11URI(token: self.label, object: label), in: self)
    }

    /// Throws when an object labelled `label` exists. Logs in first: a search on a session without the login sees no
    /// private object, and would take a label an AES key holds for free (closing an application's last session logs
    /// it out). The session `logIn()` leaves in the pool keeps the login through the generation: under the token's
    /// exclusive access no other thread's operation, nor its recovery, closes sessions meanwhile.
    private func refuseExisting(label: String) throws(PKCS11Error) {
        try logIn()
        let existing = try run("find") { session, functions throws(PKCS11Error) in
            try findObjects(
                session: session, functions: functions, template: [PKCS11Attribute(CKA_LABEL, string: label)], limit: 1)
        }
        if !existing.isEmpty {
            throw PKCS11Error("generate", reason: "token '\(self.label)' already holds an object labelled '\(label)'")
        }
    }
}

internal import CPKCS11
import Synchronization

/// A PKCS#11 module (a hardware security module's library, SoftHSM2's `libsofthsm2.so`, a cloud HSM's client),
/// loaded and initialised once per process.
///
/// PKCS#11 allows one `C_Initialize` per process and ties a login to the process, not to the caller: the module, and
/// each token opened through it, is therefore one object per process, shared by every service that runs in it
/// (`securepush up` runs three). ``load(path:)`` returns that object.
public final class PKCS11Module: @unchecked Sendable {
    // @unchecked: `functions` is set once and the module itself is thread-safe (initialised with CKF_OS_LOCKING_OK);
    // the token cache is behind a Mutex.

    /// The module's path, as configured.
    public let path: String
    let functions: UnsafeMutablePointer<ck_function_list>
    private let tokens = Mutex<[String: PKCS11Token]>([:])

    private static let loaded = Mutex<[String: PKCS11Module]>([:])

    private init(path: String, functions: UnsafeMutablePointer<ck_function_list>) {
        self.path = path
        self.functions = functions
    }

    /// The module at `path`, loaded and initialised on first use; later calls with the same path return it.
    /// Throws ``PKCS11Error`` when the file cannot be loaded, is not a PKCS#11 module, or refuses to initialise.
    public static func load(path: String) throws(PKCS11Error) -> PKCS11Module {
        try loaded.withLock { (modules) throws(PKCS11Error) -> PKCS11Module in
            if let module = modules[path] { return module }
            var functions: UnsafeMutablePointer<ck_function_list>?
            var library: UnsafeMutableRawPointer?
            var message = [CChar](repeating: 0, count: 512)
            let rv = securepush_pkcs11_load(path, &functions, &library, &message, message.count)
            guard rv == CKR_OK, let functions else {
                let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw reason.isEmpty ? PKCS11Error("C_Initialize", code: rv) : PKCS11Error("load", reason: reason)
            }
            // The specification has a module fill every entry (unsupported ones answer CKR_FUNCTION_NOT_SUPPORTED);
            // one that leaves an entry we call empty is refused here, not met as a crash later.
            let list = functions.pointee
            let entries: [(String, Bool)] = [
                ("C_GetSlotList", list.C_GetSlotList != nil), ("C_GetTokenInfo", list.C_GetTokenInfo != nil),
                ("C_OpenSession", list.C_OpenSession != nil), ("C_CloseSession", list.C_CloseSession != nil),
                ("C_Login", list.C_Login != nil), ("C_FindObjectsInit", list.C_FindObjectsInit != nil),
                ("C_FindObjects", list.C_FindObjects != nil), ("C_FindObjectsFinal", list.C_FindObjectsFinal != nil),
                ("C_GetAttributeValue", list.C_GetAttributeValue != nil), ("C_SignInit", list.C_SignInit != nil),
                ("C_Sign", list.C_Sign != nil), ("C_EncryptInit", list.C_EncryptInit != nil),
                ("C_Encrypt", list.C_Encrypt != nil), ("C_DecryptInit", list.C_DecryptInit != nil),
                ("C_Decrypt", list.C_Decrypt != nil), ("C_GenerateKey", list.C_GenerateKey != nil),
                ("C_GenerateKeyPair", list.C_GenerateKeyPair != nil),
            ]
            if let missing = entries.first(where: { !$0.1 }) {
                throw PKCS11Error("load", reason: "its function list has no \(missing.0)")
            }
            let module = PKCS11Module(path: path, functions: functions)
            modules[path] = module
            return module
        }
    }

    /// The token labelled `label`, logged in with `pin` on first use; later calls return the same token.
    public func token(label: String, pin: String) throws(PKCS11Error) -> PKCS11Token {
        try token(PKCS11TokenSelector(label: label), pin: pin)
    }

    /// The one token `uri` names (its label, and its serial number, manufacturer and model when given), logged in
    /// with `pin` on first use; later calls return the same token.
    public func token(_ uri: PKCS11URI, pin: String) throws(PKCS11Error) -> PKCS11Token {
        try token(
            PKCS11TokenSelector(label: uri.token, serial: uri.serial, manufacturer: uri.manufacturer, model: uri.model),
            pin: pin)
    }

    /// Throws when no slot holds such a token or more than one does (`find token`), or when the module refuses the
    /// PIN (``PKCS11Error/isPINRefused``).
    func token(_ selector: PKCS11TokenSelector, pin: String) throws(PKCS11Error) -> PKCS11Token {
        try tokens.withLock { (tokens) throws(PKCS11Error) -> PKCS11Token in
            if let token = tokens[selector.description] {
                // A login is the process's: logging in again proves nothing. A token has one user PIN, so another one
                // cannot be right.
                guard token.hasPIN(pin) else { throw PKCS11Error("C_Login", code: CKR_PIN_INCORRECT) }
                return token
            }
            let slot = try slot(selector)
            let token = PKCS11Token(module: self, slot: slot, label: selector.label, pin: pin)
            try token.logIn()
            tokens[selector.description] = token
            return token
        }
    }

    /// The one slot whose token `selector` matches (text fields are padded with spaces on the wire): two tokens
    /// of one label are refused rather than one of them chosen.
    func slot(_ selector: PKCS11TokenSelector) throws(PKCS11Error) -> ck_slot_id_t {
        var slots: [ck_slot_id_t] = []
        // A slot plugged in between the two calls makes the second answer CKR_BUFFER_TOO_SMALL: ask again.
        for attempt in 1...3 {
            var count: UInt = 0
            try check("C_GetSlotList", functions.pointee.C_GetSlotList!(1, nil, &count))
            slots = [ck_slot_id_t](repeating: 0, count: Int(count))
            let rv = functions.pointee.C_GetSlotList!(1, &slots, &count)
            if rv == CKR_BUFFER_TOO_SMALL, attempt < 3 { continue }
            try check("C_GetSlotList", rv)
            slots = Array(slots.prefix(Int(count)))
            break
        }
        let matching = slots.filter { slot in
            var info = ck_token_info()
            guard functions.pointee.C_GetTokenInfo!(slot, &info) == CKR_OK else { return false }
            return selector.matches(
                label: Self.paddedString(info.label), serial: Self.paddedString(info.serial_number),
                manufacturer: Self.paddedString(info.manufacturer_id), model: Self.paddedString(info.model))
        }
        guard let slot = matching.first else {
            throw PKCS11Error("find token", reason: "no token \(selector)")
        }
        guard matching.count == 1 else {
            throw PKCS11Error(
                "find token", reason: "\(matching.count) tokens \(selector): add 'serial=' to the URI to name one")
        }
        return slot
    }

    /// A fixed-width, space-padded field of a PKCS#11 structure as a string.
    static func paddedString<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { bytes in
            String(decoding: bytes, as: UTF8.self).trimmingTrailing(" ")
        }
    }
}

/// Throws ``PKCS11Error`` naming `operation` unless `rv` is `CKR_OK`.
@inline(__always)
func check(_ operation: String, _ rv: ck_rv_t) throws(PKCS11Error) {
    if rv != CKR_OK { throw PKCS11Error(operation, code: rv) }
}

extension String {
    fileprivate func trimmingTrailing(_ character: Character) -> String {
        var text = Substring(self)
        while text.last == character || text.last == "\0" { text = text.dropLast() }
        return String(text)
    }
}

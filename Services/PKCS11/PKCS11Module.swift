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
            let module = PKCS11Module(path: path, functions: functions)
            modules[path] = module
            return module
        }
    }

    /// The token labelled `label`, logged in with `pin` on first use; later calls return the same token.
    ///
    /// Throws when no slot holds a token with that label (`find token`), or when the module refuses the PIN
    /// (``PKCS11Error/isPINRefused``).
    public func token(label: String, pin: String) throws(PKCS11Error) -> PKCS11Token {
        try tokens.withLock { (tokens) throws(PKCS11Error) -> PKCS11Token in
            if let token = tokens[label] {
                // A login is the process's: logging in again proves nothing. A token has one user PIN, so another one
                // cannot be right.
                guard token.hasPIN(pin) else { throw PKCS11Error("C_Login", code: CKR_PIN_INCORRECT) }
                return token
            }
            let slot = try slot(label: label)
            let token = PKCS11Token(module: self, slot: slot, label: label, pin: pin)
            try token.logIn()
            tokens[label] = token
            return token
        }
    }

    /// The slot whose token has `label` (labels are padded with spaces to 32 bytes on the wire).
    func slot(label: String) throws(PKCS11Error) -> ck_slot_id_t {
        var count: UInt = 0
        try check("C_GetSlotList", functions.pointee.C_GetSlotList!(1, nil, &count))
        var slots = [ck_slot_id_t](repeating: 0, count: Int(count))
        try check("C_GetSlotList", functions.pointee.C_GetSlotList!(1, &slots, &count))
        for slot in slots.prefix(Int(count)) {
            var info = ck_token_info()
            guard functions.pointee.C_GetTokenInfo!(slot, &info) == CKR_OK else { continue }
            if Self.paddedString(info.label) == label { return slot }
        }
        throw PKCS11Error("find token", reason: "no token labelled '\(label)'")
    }

    /// The token's label, for health: what `C_GetTokenInfo` says now.
    func tokenInfo(slot: ck_slot_id_t) throws(PKCS11Error) -> ck_token_info {
        var info = ck_token_info()
        try check("C_GetTokenInfo", functions.pointee.C_GetTokenInfo!(slot, &info))
        return info
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

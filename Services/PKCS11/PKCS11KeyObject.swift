internal import CPKCS11
import Synchronization

/// A key object in a token, found by its template: keeps its handle, finds it again when the module says the handle
/// is no longer valid (the token was removed and put back), and says so when the token no longer holds it.
final class PKCS11KeyObject: @unchecked Sendable {
    // @unchecked: the handle is behind a Mutex; the rest is immutable.

    /// How errors and health name the key, e.g. `token 'securepush' … key 'auth-signing'`.
    let tokenLabel: String
    let name: String
    let template: [PKCS11Attribute]
    private let handle: Mutex<ck_object_handle_t>

    init(tokenLabel: String, name: String, template: [PKCS11Attribute], handle: ck_object_handle_t) {
        self.tokenLabel = tokenLabel
        self.name = name
        self.template = template
        self.handle = Mutex(handle)
    }

    /// Runs `body` with the key's handle; when the module answers that the handle is invalid, finds the key again
    /// by its template and runs `body` once more.
    func use<T>(
        session: ck_session_handle_t, functions: UnsafeMutablePointer<ck_function_list>,
        _ body: (ck_object_handle_t) throws(PKCS11Error) -> T
    ) throws(PKCS11Error) -> T {
        let current = handle.withLock { $0 }
        do throws(PKCS11Error) {
            return try body(current)
        } catch  where error.code == CKR_OBJECT_HANDLE_INVALID || error.code == CKR_KEY_HANDLE_INVALID {
            guard
                let found = try findObjects(session: session, functions: functions, template: template, limit: 1).first
            else { throw PKCS11Error(missingKey: "token '\(tokenLabel)' no longer holds key \(name)") }
            handle.withLock { $0 = found }
            return try body(found)
        }
    }
}

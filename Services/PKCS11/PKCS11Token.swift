internal import CPKCS11
import Synchronization

/// One token of a ``PKCS11Module``, logged in as its user: keeps a pool of sessions and runs each operation on a
/// session of its own, and records how operations went (``observe(_:)``).
public final class PKCS11Token: @unchecked Sendable {
    // @unchecked: the handles are immutable; the session pool, the observers and the PIN refusal are behind Mutexes.

    /// What one operation did, for metrics: its name (`sign`, `encrypt`, `decrypt`, `find`, `generate`, `probe`),
    /// how long it took, and whether the module answered `CKR_OK`.
    public typealias Observer = @Sendable (_ operation: String, _ duration: Duration, _ succeeded: Bool) -> Void

    /// The token's label.
    public let label: String
    let module: PKCS11Module
    let slot: ck_slot_id_t
    private let pin: [UInt8]
    private let idleSessions = Mutex<[ck_session_handle_t]>([])
    private let observers = Mutex<[Observer]>([])
    private let pinRefusal = Mutex<PKCS11Error?>(nil)
    /// Operations share the token; a key generation has it alone: the label check, the generation and finding the
    /// new key are one step within this process, and no other thread's operation runs beside it (SoftHSM's file store
    /// failed a generation overlapping another, or a find or a sign, with `CKR_GENERAL_ERROR`).
    let access = PKCS11TokenAccess()

    /// Sessions kept open when idle: more than the cores that use them at once; the module may limit sessions.
    static let maxIdleSessions = 16

    init(module: PKCS11Module, slot: ck_slot_id_t, label: String, pin: String) {
        self.module = module
        self.slot = slot
        self.label = label
        self.pin = Array(pin.utf8)
    }

    /// Sessions open and idle in the pool now (for tests and diagnostics).
    var idleSessionCount: Int { idleSessions.withLock { $0.count } }

    /// Adds `observer`, told of every operation from now on.
    public func observe(_ observer: @escaping Observer) {
        observers.withLock { $0.append(observer) }
    }

    /// Whether `pin` is the PIN this token was logged in with.
    func hasPIN(_ pin: String) -> Bool { Array(pin.utf8) == self.pin }

    /// Logs in on a new session, which goes to the pool: `CKR_USER_ALREADY_LOGGED_IN` (another service of this process
    /// did) is a success. Once the token refused the PIN it is never offered again (each try would count towards
    /// locking it): the refusal is answered from memory until the process restarts with a PIN that works.
    func logIn() throws(PKCS11Error) {
        release(try loggedInSession())
    }

    /// A new session, logged in as ``logIn()`` does, that the caller holds: while it is open, the login holds
    /// (PKCS#11's `C_CloseSession`: closing an application's last session with a token logs it out).
    private func loggedInSession() throws(PKCS11Error) -> ck_session_handle_t {
        if let refusal = pinRefusal.withLock({ $0 }) { throw refusal }
        let session = try openSession()
        let rv = pin.withUnsafeBufferPointer { pin in
            module.functions.pointee.C_Login!(
                session, CKU_USER, UnsafeMutablePointer(mutating: pin.baseAddress), UInt(pin.count))
        }
        guard rv == CKR_OK || rv == CKR_USER_ALREADY_LOGGED_IN else {
            _ = module.functions.pointee.C_CloseSession!(session)
            let error = PKCS11Error("C_Login", code: rv)
            if error.isPINRefused { pinRefusal.withLock { $0 = error } }
            throw error
        }
        return session
    }

    /// Runs `body` on a session of its own, named `operation` for the observer.
    ///
    /// A session whose operation failed because of the module or the token (the token gone, the module broken) is
    /// closed, not reused; one that answered about the data or the key (``PKCS11Error/leavesSessionUsable``) goes back
    /// to the pool. A lost session, or a key not found (a session that lost its login sees no private key), is
    /// tried once more after a new login.
    func run<T>(
        _ operation: String,
        _ body: (ck_session_handle_t, UnsafeMutablePointer<ck_function_list>) throws(PKCS11Error) -> T
    ) throws(PKCS11Error) -> T {
        try access.shared { () throws(PKCS11Error) -> T in try runSharingAccess(operation, body) }
    }

    /// ``run(_:_:)`` once ``access`` is held.
    private func runSharingAccess<T>(
        _ operation: String,
        _ body: (ck_session_handle_t, UnsafeMutablePointer<ck_function_list>) throws(PKCS11Error) -> T
    ) throws(PKCS11Error) -> T {
        let started = ContinuousClock.now
        do throws(PKCS11Error) {
            let result: T
            do throws(PKCS11Error) {
                result = try attempt(body)
            } catch  where error.isLostSession {
                // The token was removed and put back, or a network HSM reconnected: every pooled session is dead and
                // the login is gone. Close the idle sessions, log in again and try once more on a fresh session. A
                // login that still holds answers CKR_USER_ALREADY_LOGGED_IN.
                closeIdleSessions()
                result = try retryAfterLogIn(body, failure: error)
            } catch  where error.isMissingKey {
                // A session that lost its login sees no private key. Log in again and look once more, on the new
                // session (the pooled sessions stay: closing an application's last session logs it out).
                result = try retryAfterLogIn(body, failure: error)
            }
            notify(operation, since: started, succeeded: true)
            return result
        } catch {
            notify(operation, since: started, succeeded: false)
            throw error
        }
    }

    /// Logs in again and runs `body` once more, on the session just logged in (held, so that no other thread's
    /// recovery closes it and the login with it); `failure` is thrown when the login fails for a reason other than
    /// the PIN (the token is still gone: the first failure says more than the login's).
    private func retryAfterLogIn<T>(
        _ body: (ck_session_handle_t, UnsafeMutablePointer<ck_function_list>) throws(PKCS11Error) -> T,
        failure: PKCS11Error
    ) throws(PKCS11Error) -> T {
        let session: ck_session_handle_t
        do throws(PKCS11Error) {
            session = try loggedInSession()
        } catch let login where !login.isPINRefused {
            throw failure
        }
        return try attempt(body, on: session)
    }

    /// `body` on an idle session or a new one.
    private func attempt<T>(
        _ body: (ck_session_handle_t, UnsafeMutablePointer<ck_function_list>) throws(PKCS11Error) -> T
    ) throws(PKCS11Error) -> T {
        let idle = idleSessions.withLock { $0.popLast() }
        let session: ck_session_handle_t
        if let idle { session = idle } else { session = try openSession() }
        return try attempt(body, on: session)
    }

    /// `body` on `session`, which goes back to the pool unless the module failed.
    private func attempt<T>(
        _ body: (ck_session_handle_t, UnsafeMutablePointer<ck_function_list>) throws(PKCS11Error) -> T,
        on session: ck_session_handle_t
    ) throws(PKCS11Error) -> T {
        do throws(PKCS11Error) {
            let result = try body(session, module.functions)
            release(session)
            return result
        } catch {
            if error.leavesSessionUsable {
                release(session)
            } else {
                _ = module.functions.pointee.C_CloseSession!(session)
            }
            throw error
        }
    }

    private func openSession() throws(PKCS11Error) -> ck_session_handle_t {
        var session: ck_session_handle_t = 0
        try check(
            "C_OpenSession",
            module.functions.pointee.C_OpenSession!(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, nil, nil, &session))
        return session
    }

    private func closeIdleSessions() {
        for session in idleSessions.withLock({ sessions in
            defer { sessions = [] }
            return sessions
        }) {
            _ = module.functions.pointee.C_CloseSession!(session)
        }
    }

    private func release(_ session: ck_session_handle_t) {
        let kept = idleSessions.withLock { sessions in
            guard sessions.count < Self.maxIdleSessions else { return false }
            sessions.append(session)
            return true
        }
        if !kept { _ = module.functions.pointee.C_CloseSession!(session) }
    }

    private func notify(_ operation: String, since started: ContinuousClock.Instant, succeeded: Bool) {
        let duration = ContinuousClock.now - started
        for observer in observers.withLock({ $0 }) { observer(operation, duration, succeeded) }
    }
}

extension PKCS11Error {
    /// Whether the session, or the login it carried, is gone with the token or the connection to the module.
    var isLostSession: Bool {
        guard let code else { return false }
        return [
            CKR_USER_NOT_LOGGED_IN, CKR_SESSION_HANDLE_INVALID, CKR_SESSION_CLOSED, CKR_DEVICE_REMOVED,
            CKR_TOKEN_NOT_PRESENT, CKR_DEVICE_ERROR,
        ].contains(code)
    }

    /// Whether the session that answered can serve again: the module answered about the request, not about itself —
    /// the data given (a tag that does not verify, a wrong length), the key (missing, ambiguous, of another type, not
    /// allowed this use) or the mechanism and template; no operation stays active after such an answer. A session is
    /// closed only when the module or the token failed: closing an application's last session logs it out, and a
    /// logged-out session finds no private key.
    var leavesSessionUsable: Bool {
        guard let code else { return true }
        return [
            CKR_ENCRYPTED_DATA_INVALID, CKR_ENCRYPTED_DATA_LEN_RANGE, CKR_DATA_INVALID, CKR_DATA_LEN_RANGE,
            CKR_SIGNATURE_INVALID, CKR_KEY_TYPE_INCONSISTENT, CKR_KEY_FUNCTION_NOT_PERMITTED, CKR_MECHANISM_INVALID,
            CKR_MECHANISM_PARAM_INVALID, CKR_ATTRIBUTE_SENSITIVE, CKR_ATTRIBUTE_TYPE_INVALID,
            CKR_ATTRIBUTE_VALUE_INVALID, CKR_TEMPLATE_INCOMPLETE, CKR_TEMPLATE_INCONSISTENT,
        ].contains(code)
    }
}

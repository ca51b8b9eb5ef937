internal import CPKCS11
import Synchronization

/// One token of a ``PKCS11Module``, logged in as its user: keeps a pool of sessions and runs each operation on a
/// session of its own, records how operations went (``observe(_:)``), and says whether the token still answers
/// (``readiness()``).
public final class PKCS11Token: @unchecked Sendable {
    // @unchecked: the handles are immutable; the session pool, the observers and the self-tests are behind Mutexes.

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
    /// One operation per key found in the token, run by ``readiness()``.
    private let selfTests = Mutex<[@Sendable () throws(PKCS11Error) -> Void]>([])

    /// Sessions kept open when idle: more than the cores that use them at once; the module may limit sessions.
    static let maxIdleSessions = 16

    init(module: PKCS11Module, slot: ck_slot_id_t, label: String, pin: String) {
        self.module = module
        self.slot = slot
        self.label = label
        self.pin = Array(pin.utf8)
    }

    /// Adds `observer`, told of every operation from now on.
    public func observe(_ observer: @escaping Observer) {
        observers.withLock { $0.append(observer) }
    }

    /// `ok` when every key found in the token still does its work there — each signs, or encrypts, a probe (a few
    /// hundred microseconds on SoftHSM2, a round trip on a network HSM); otherwise the first reason, e.g.
    /// `token 'securepush' no longer holds key 'auth-signing'`. Asked again, it asks the module again: a module that
    /// answers once more is `ok` at once.
    public func readiness() -> String {
        for selfTest in selfTests.withLock({ $0 }) {
            do throws(PKCS11Error) {
                try selfTest()
            } catch {
                return error.reason ?? error.description
            }
        }
        return "ok"
    }

    /// Adds `selfTest`, an operation with a key found in the token, to ``readiness()``.
    func watch(_ selfTest: @escaping @Sendable () throws(PKCS11Error) -> Void) {
        selfTests.withLock { $0.append(selfTest) }
    }

    /// Whether `pin` is the PIN this token was logged in with.
    func hasPIN(_ pin: String) -> Bool { Array(pin.utf8) == self.pin }

    /// Logs in on a new session: `CKR_USER_ALREADY_LOGGED_IN` (another service of this process did) is a success.
    func logIn() throws(PKCS11Error) {
        let session = try openSession()
        let rv = pin.withUnsafeBufferPointer { pin in
            module.functions.pointee.C_Login!(
                session, CKU_USER, UnsafeMutablePointer(mutating: pin.baseAddress), UInt(pin.count))
        }
        guard rv == CKR_OK || rv == CKR_USER_ALREADY_LOGGED_IN else {
            _ = module.functions.pointee.C_CloseSession!(session)
            throw PKCS11Error("C_Login", code: rv)
        }
        release(session)
    }

    /// Runs `body` on a session of its own, named `operation` for the observer.
    ///
    /// A session whose operation failed for a reason that is not the data's (the token gone, the module broken) is
    /// closed, not reused.
    func run<T>(
        _ operation: String,
        _ body: (ck_session_handle_t, UnsafeMutablePointer<ck_function_list>) throws(PKCS11Error) -> T
    ) throws(PKCS11Error) -> T {
        let started = ContinuousClock.now
        do throws(PKCS11Error) {
            let result: T
            do throws(PKCS11Error) {
                result = try attempt(body)
            } catch  where error.code == CKR_USER_NOT_LOGGED_IN || error.isMissingKey {
                // A token removed and put back has lost its login (and a logged-out session sees no private key):
                // log in again and try once more. A login that still holds answers CKR_USER_ALREADY_LOGGED_IN.
                try logIn()
                result = try attempt(body)
            }
            notify(operation, since: started, succeeded: true)
            return result
        } catch {
            notify(operation, since: started, succeeded: false)
            throw error
        }
    }

    /// `body` on an idle session or a new one; the session goes back to the pool unless the module failed.
    private func attempt<T>(
        _ body: (ck_session_handle_t, UnsafeMutablePointer<ck_function_list>) throws(PKCS11Error) -> T
    ) throws(PKCS11Error) -> T {
        let idle = idleSessions.withLock { $0.popLast() }
        let session: ck_session_handle_t
        if let idle { session = idle } else { session = try openSession() }
        do throws(PKCS11Error) {
            let result = try body(session, module.functions)
            release(session)
            return result
        } catch {
            if error.isAboutData {
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
    /// Whether a key found before is no longer in the token (``PKCS11KeyObject``).
    var isMissingKey: Bool { operation == "find key" && code == nil }

    /// Whether the failure is about the data given (a tag that does not verify, a wrong length), not the module:
    /// such a failure says nothing about the token's health.
    var isAboutData: Bool {
        guard let code else { return reason != nil && operation != "load" }
        return [
            CKR_ENCRYPTED_DATA_INVALID, CKR_ENCRYPTED_DATA_LEN_RANGE, CKR_DATA_INVALID, CKR_DATA_LEN_RANGE,
            CKR_SIGNATURE_INVALID,
        ].contains(code)
    }
}

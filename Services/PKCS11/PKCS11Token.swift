internal import CPKCS11
import Synchronization

/// One token of a ``PKCS11Module``, logged in as its user: keeps a pool of sessions and runs each operation on a
/// session of its own, records how operations went (``observe(_:)``), and says whether the token still answers
/// (``readiness()``).
public final class PKCS11Token: @unchecked Sendable {
    // @unchecked: the handles are immutable; the session pool, the last failure and the observer are behind Mutexes.

    /// What one operation did, for metrics: its name (`sign`, `encrypt`, `decrypt`, `find`, `generate`, `login`),
    /// how long it took, and whether the module answered `CKR_OK`.
    public typealias Observer = @Sendable (_ operation: String, _ duration: Duration, _ succeeded: Bool) -> Void

    /// The token's label.
    public let label: String
    let module: PKCS11Module
    let slot: ck_slot_id_t
    private let pin: [UInt8]
    private let idleSessions = Mutex<[ck_session_handle_t]>([])
    private let lastFailure = Mutex<String?>(nil)
    private let observers = Mutex<[Observer]>([])
    private let keys = Mutex<[PKCS11KeyObject]>([])

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

    /// `ok` when the token still holds every key found in it and the last operation that needed the module (if any
    /// since) succeeded; otherwise the reason, e.g. `token 'securepush' no longer holds key 'auth-signing'`.
    public func readiness() -> String {
        let keys = keys.withLock { $0 }
        do throws(PKCS11Error) {
            let missing = try run("probe") { session, functions throws(PKCS11Error) in
                var missing: [String] = []
                for key in keys where try !key.isPresent(session: session, functions: functions) {
                    missing.append(key.name)
                }
                return missing
            }
            if let key = missing.first { return "token '\(label)' no longer holds key \(key)" }
        } catch {
            return error.description
        }
        return lastFailure.withLock { $0 } ?? "ok"
    }

    /// Remembers `key`, for ``readiness()``.
    func watch(_ key: PKCS11KeyObject) {
        keys.withLock { $0.append(key) }
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
    /// A session that failed is closed, not reused; a failure that is not about the data (the token gone, the
    /// module broken) is kept for ``readiness()`` until an operation succeeds again.
    func run<T>(
        _ operation: String,
        _ body: (ck_session_handle_t, UnsafeMutablePointer<ck_function_list>) throws(PKCS11Error) -> T
    ) throws(PKCS11Error) -> T {
        let started = ContinuousClock.now
        do throws(PKCS11Error) {
            let idle = idleSessions.withLock { $0.popLast() }
            let session: ck_session_handle_t
            if let idle { session = idle } else { session = try openSession() }
            do throws(PKCS11Error) {
                let result = try body(session, module.functions)
                release(session)
                if operation != "probe" { lastFailure.withLock { $0 = nil } }
                notify(operation, since: started, succeeded: true)
                return result
            } catch {
                if error.isAboutData {
                    release(session)
                } else {
                    _ = module.functions.pointee.C_CloseSession!(session)
                }
                throw error
            }
        } catch {
            if !error.isAboutData { lastFailure.withLock { $0 = error.description } }
            notify(operation, since: started, succeeded: false)
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

import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Who may use a token at once: operations (sign, encrypt, decrypt, find, probe) share it; a key generation has it
/// alone, with no operation of this process running beside it.
///
/// SoftHSM 2.6.1 (Debian 12's) races an object's creation against the re-reads of the token's file store that other
/// operations make: a `C_GenerateKey` running beside a `C_FindObjects` or a sign failed with `CKR_GENERAL_ERROR`
/// (SoftHSMv2 issue 573, fixed after 2.6.1). Generating is rare (`securepush hsm keygen`, set-up, rotation), so holding
/// operations back for one costs nothing in service; a writer-preferring lock keeps a steady stream of operations from
/// starving it.
final class PKCS11TokenAccess: @unchecked Sendable {
    // @unchecked: the lock is a pthread read-write lock, made once and never moved; the owner is atomic.
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    /// The thread holding the lock exclusively (0: none), whose own operations run without taking it again.
    private let exclusiveOwner = Atomic<UInt>(0)

    init() {
        lock = .allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        #if canImport(Glibc)
            pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        #endif
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` beside other operations, never beside a generation; on the thread generating, within it.
    func shared<T>(_ body: () throws(PKCS11Error) -> T) throws(PKCS11Error) -> T {
        if exclusiveOwner.load(ordering: .relaxed) == Self.currentThread { return try body() }
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    /// Runs `body` with the token to itself: no operation of another thread and no other generation runs meanwhile.
    /// `body`'s own operations (the label check, the generation, finding the new key) run through ``shared(_:)``.
    func exclusive<T>(_ body: () throws(PKCS11Error) -> T) throws(PKCS11Error) -> T {
        pthread_rwlock_wrlock(lock)
        exclusiveOwner.store(Self.currentThread, ordering: .relaxed)
        defer {
            exclusiveOwner.store(0, ordering: .relaxed)
            pthread_rwlock_unlock(lock)
        }
        return try body()
    }

    /// The calling thread, as a number that no thread alive at the same time shares.
    private static var currentThread: UInt {
        #if canImport(Glibc)
            UInt(pthread_self())
        #else
            UInt(bitPattern: pthread_self())
        #endif
    }
}

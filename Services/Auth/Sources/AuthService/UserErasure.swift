import Crypto
import Foundation
import Logging
import ServiceCore
import SharedModels

/// Erases a person across the three services (`users.delete`), journaled so that it always finishes: auth's own part
/// (the account, its sessions and its audit key) in one transaction with the journal row, then push-dispatch's and
/// the store's, each called with a token auth signs for itself (scope `users:erase`) until it answers. An erasure a
/// restart or an unreachable service interrupted is finished by ``resumeUnfinished()`` (run periodically) or by
/// the next call for the same user.
public struct UserErasure: Sendable {
    /// Attempts at one peer within one call before answering `-32050` (the rest is left to the resumer).
    static let attemptsPerCall = 3

    let database: any SQLDatabase
    let peers: (any ErasurePeers)?
    let signer: AccessTokenSigner
    let audit: AuditTrail?
    let now: @Sendable () -> Date
    let logger: Logger

    public init(
        database: any SQLDatabase, peers: (any ErasurePeers)?, signer: AccessTokenSigner, audit: AuditTrail?,
        now: @escaping @Sendable () -> Date = Date.init, logger: Logger
    ) {
        self.database = database
        self.peers = peers
        self.signer = signer
        self.audit = audit
        self.now = now
        self.logger = logger
    }

    /// How the journal finds a user again once their id is gone.
    static func digest(_ userID: String) -> String { UserDigest.of(userID) }

    /// Erases `userID` (requested by `requestedBy`: `self` or an operator's client id), or answers the result of the
    /// erasure already made. Throws `-32004` for a user who never existed, `-32050` naming the service that could not
    /// be reached (with `data {erasureId}`; the erasure is finished later).
    public func erase(userID: String, requestedBy: String) async throws -> Users.Delete.Result {
        let digest = Self.digest(userID)
        if let journal = try await journal(digest: digest) { return try await complete(journal) }
        guard try await database.readOne("SELECT 1 FROM users WHERE id = ?", [userID]) != nil else {
            throw RPCError.notFound("user")
        }
        // Entries about the user recorded so far are committed under their key before it is deleted.
        audit?.record("users.delete", ["user": .user(userID), "requestedBy": .text(requestedBy)])
        try await audit?.flush()
        let erasureID = UUID.random().uuidString.lowercased()
        let requestedAt = now().millisecondsSince1970
        let inserted = try await database.transaction { transaction -> Bool in
            // Two calls at once for the same user: the unique digest lets one of them insert.
            guard
                try await transaction.query("SELECT 1 FROM user_erasure WHERE user_digest = ?", [digest]).isEmpty
            else { return false }
            var counts: [String: Int] = [:]
            _ = try await transaction.execute("DELETE FROM refresh_tokens WHERE user_id = ?", [userID])
            counts["sessions"] = try await transaction.execute("DELETE FROM token_families WHERE user_id = ?", [userID])
            counts["auditKeys"] = try await transaction.execute(
                "DELETE FROM audit_user_key WHERE user_id = ?", [userID])
            counts["users"] = try await transaction.execute("DELETE FROM users WHERE id = ?", [userID])
            _ = try await transaction.execute(
                """
                INSERT INTO user_erasure (id, user_digest, user_id, requested_by, requested_at, auth_result)
                VALUES (?, ?, ?, ?, ?, ?)
                """, [erasureID, digest, userID, requestedBy, requestedAt, try Self.json(counts)])
            return true
        }
        audit?.forget(userID)
        await purgeErasedBytes()
        guard inserted, let journal = try await journal(digest: digest) else {
            guard let journal = try await journal(digest: digest) else { throw RPCError.notFound("user") }
            return try await complete(journal)
        }
        return try await complete(journal)
    }

    /// Finishes every erasure left unfinished (by a restart, or a service that could not be reached).
    public func resumeUnfinished() async throws {
        for row in try await database.read("SELECT user_digest FROM user_erasure WHERE finished_at IS NULL", []) {
            guard let journal = try await journal(digest: try row.decode(0)) else { continue }
            do {
                _ = try await complete(journal)
            } catch {
                logger.warning(
                    "auth.erasure.resume_failed", metadata: ["auth.erasure_id": "\(journal.id)", "error": "\(error)"])
            }
        }
    }

    /// One row of the journal.
    struct Journal {
        var id: String
        var userID: String?
        var auth: [String: Int]
        var dispatch: [String: Int]?
        var deviceIDs: [String]?
        var store: [String: Int]?
        var finished: Bool
    }

    private func journal(digest: String) async throws -> Journal? {
        guard
            let row = try await database.readOne(
                """
                SELECT id, user_id, auth_result, dispatch_result, device_ids, store_result, finished_at
                FROM user_erasure WHERE user_digest = ?
                """, [digest])
        else { return nil }
        return Journal(
            id: try row.decode(0), userID: try row.decode(1), auth: try Self.decode(try row.decode(2)),
            dispatch: try (row.decode(3) as String?).map(Self.decode),
            deviceIDs: try (row.decode(4) as String?)
                .map(Self.decode), store: try (row.decode(5) as String?).map(Self.decode),
            finished: try (row.decode(6) as Int64?) != nil)
    }

    /// Calls the services that have not answered yet, then closes the journal row (forgetting the user id).
    private func complete(_ journal: Journal) async throws -> Users.Delete.Result {
        var journal = journal
        if !journal.finished, let userID = journal.userID {
            guard let peers else { throw RPCError.unavailable("push-dispatch", "auth has no client of it") }
            if journal.dispatch == nil {
                let result = try await attempt("push-dispatch", journal.id) {
                    try await peers.eraseInDispatch(.init(userId: userID), token: try await token())
                }
                journal.dispatch = result.erased
                journal.deviceIDs = result.deviceIds
                _ = try await database.execute(
                    "UPDATE user_erasure SET dispatch_result = ?, device_ids = ? WHERE id = ?",
                    [try Self.json(result.erased), try Self.json(result.deviceIds), journal.id])
            }
            if journal.store == nil {
                let deviceIDs = journal.deviceIDs ?? []
                let result = try await attempt("notification-store", journal.id) {
                    try await peers.eraseInStore(.init(userId: userID, deviceIds: deviceIDs), token: try await token())
                }
                journal.store = result.erased
                _ = try await database.execute(
                    "UPDATE user_erasure SET store_result = ? WHERE id = ?", [try Self.json(result.erased), journal.id])
            }
            _ = try await database.execute(
                "UPDATE user_erasure SET user_id = NULL, device_ids = NULL, finished_at = ? WHERE id = ?",
                [now().millisecondsSince1970, journal.id])
            await purgeErasedBytes()
            audit?.record("users.erased", ["erasure": .text(journal.id)])
            logger.notice("auth.user.erased", metadata: ["auth.erasure_id": "\(journal.id)"])
        }
        return Users.Delete.Result(
            erasureId: journal.id,
            services: [
                "auth": journal.auth, "push-dispatch": journal.dispatch ?? [:],
                "notification-store": journal.store ?? [:],
            ])
    }

    /// `call`, tried ``attemptsPerCall`` times; then `-32050` naming `peer`, with `data {erasureId}`.
    private func attempt<T: Sendable>(_ peer: String, _ erasureID: String, _ call: () async throws -> T)
        async throws -> T
    {
        var lastError: (any Error)?
        for attempt in 0..<Self.attemptsPerCall {
            do {
                return try await call()
            } catch {
                lastError = error
                logger.warning(
                    "auth.erasure.peer_failed",
                    metadata: ["auth.peer": "\(peer)", "auth.erasure_id": "\(erasureID)", "error": "\(error)"])
                if attempt + 1 < Self.attemptsPerCall { try await Task.sleep(for: .milliseconds(200 << attempt)) }
            }
        }
        throw RPCError(
            code: RPCErrorCode.unavailable,
            message: "Dependency unavailable: \(peer): \(lastError.map { "\($0)" } ?? "no answer"); "
                + "the erasure is recorded and will be finished",
            data: .object(["erasureId": .string(erasureID)]))
    }

    /// A short-lived token for the services' erase methods.
    private func token() async throws -> String {
        try await signer.sign(subject: "auth", scopes: [Scope.usersErase], at: now())
    }

    private func purgeErasedBytes() async {
        do {
            try await database.purgeErasedBytes()
        } catch {
            logger.warning("auth.erasure.purge_failed", metadata: ["error": "\(error)"])
        }
    }

    private static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private static func decode<T: Decodable>(_ text: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }
}

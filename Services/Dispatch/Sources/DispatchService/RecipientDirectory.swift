import Foundation
import ServiceCore
import SharedModels

/// Answers "does auth know this recipient?" for `push.send`, with `auth.lookupUser` and push-dispatch's own client
/// token (scope `users:read`), remembering each answer briefly so a burst of sends to one user asks auth once.
public actor RecipientDirectory {
    /// How long answers are remembered.
    public struct Lifetimes: Sendable, Hashable {
        /// A user that exists (users are never deleted, so this only bounds memory and staleness).
        public var known: Duration
        /// A user that does not exist yet (short: the user may register in a moment).
        public var unknown: Duration
        /// Most answers kept; the oldest go first when full.
        public var capacity: Int

        public init(known: Duration = .seconds(60), unknown: Duration = .seconds(5), capacity: Int = 10_000) {
            self.known = known
            self.unknown = unknown
            self.capacity = capacity
        }
    }

    private let auth: RPCClient
    private let tokens: ClientCredentialsTokenProvider
    private let lifetimes: Lifetimes
    private let now: @Sendable () -> Date
    private var answers: [String: (exists: Bool, until: Date)] = [:]
    private var order: [String] = []

    /// - Parameters:
    ///   - auth: a client to auth; its `peerName` names auth in `-32050` errors.
    ///   - tokens: push-dispatch's client token (scopes `store:write users:read`).
    public init(
        auth: RPCClient, tokens: ClientCredentialsTokenProvider, lifetimes: Lifetimes = Lifetimes(),
        now: @escaping @Sendable () -> Date
    ) {
        self.auth = auth
        self.tokens = tokens
        self.lifetimes = lifetimes
        self.now = now
    }

    /// How many answers are remembered (for tests).
    public var cachedCount: Int { answers.count }

    /// Returns when auth knows `userID`; throws `-32004` naming `recipientId` when it does not, and `-32050` naming
    /// auth when auth cannot answer.
    public func requireKnown(_ userID: String) async throws {
        let current = now()
        if let answer = answers[userID], answer.until > current {
            if answer.exists { return }
            throw DispatchError.recipientNotFound(userID)
        }
        let exists = try await ask(userID)
        remember(userID, exists: exists, at: current)
        if !exists { throw DispatchError.recipientNotFound(userID) }
    }

    /// Which of `userIDs` auth knows, asking `auth.lookupUsers` (at most ``Auth/LookupUsers/maxUserIDs`` per call)
    /// only for those not remembered; throws `-32050` naming auth when auth cannot answer. Its answers are not
    /// remembered: one send to thousands would push out the answers that bursts to one user rely on.
    public func known(_ userIDs: [String]) async throws -> Set<String> {
        let current = now()
        var known = Set<String>()
        var missing: [String] = []
        for id in Set(userIDs) {
            if let answer = answers[id], answer.until > current {
                if answer.exists { known.insert(id) }
            } else {
                missing.append(id)
            }
        }
        for start in stride(from: 0, to: missing.count, by: Auth.LookupUsers.maxUserIDs) {
            let chunk = Array(missing[start..<min(start + Auth.LookupUsers.maxUserIDs, missing.count)])
            let found = Set(try await call(Auth.LookupUsers.self, .init(userIds: chunk)).users.map(\.userId))
            known.formUnion(found)
        }
        return known
    }

    private func ask(_ userID: String) async throws -> Bool {
        do {
            _ = try await call(Auth.LookupUser.self, .init(userId: userID))
            return true
        } catch let error as RPCError where error.code == RPCErrorCode.notFound {
            return false
        }
    }

    /// Calls auth with push-dispatch's token (fetched again once when auth refuses it); every failure but `-32004`
    /// becomes a `-32050` naming auth.
    private func call<M: RPCMethod>(_ method: M.Type, _ params: M.Params) async throws -> M.Result {
        do {
            do {
                return try await auth.call(M.self, params, token: try await tokens.token())
            } catch let error as RPCError where error.code == RPCErrorCode.unauthenticated {
                // Our token went stale (e.g. auth rotated its key): fetch a new one and ask once more.
                await tokens.invalidate()
                return try await auth.call(M.self, params, token: try await tokens.token())
            }
        } catch let error as RPCError
            where error.code == RPCErrorCode.notFound || error.code == RPCErrorCode.unavailable
        {
            throw error
        } catch let error as RPCError where error.code == RPCErrorCode.forbidden {
            throw DispatchError.dependencyUnavailable(
                auth.peerName,
                "push-dispatch's client may not call \(M.name): give it scope \(Scope.usersRead) "
                    + "(auth provisions it when SECUREPUSH_DISPATCH_CLIENT_ID is set)")
        } catch let error as RPCError where error.code == RPCErrorCode.methodNotFound {
            throw DispatchError.dependencyUnavailable(auth.peerName, "auth does not serve \(M.name): upgrade auth")
        } catch let error as RPCError {
            throw DispatchError.dependencyUnavailable(auth.peerName, "\(M.name) failed (\(error.code))")
        } catch {
            throw DispatchError.dependencyUnavailable(auth.peerName, "\(M.name) failed")
        }
    }

    private func remember(_ userID: String, exists: Bool, at current: Date) {
        let lifetime = exists ? lifetimes.known : lifetimes.unknown
        if answers[userID] == nil {
            if answers.count >= lifetimes.capacity, !order.isEmpty {
                answers[order.removeFirst()] = nil
            }
            order.append(userID)
        }
        answers[userID] = (exists, current.adding(lifetime))
    }

    /// Forgets what it knew of `userID` (erased on this replica): the next send to them asks auth, which knows no
    /// such user.
    public func forget(_ userID: String) {
        answers[userID] = nil
    }

    /// Forgets every user `matches` picks (erased on another replica, named by a digest of the user id).
    public func forget(where matches: @Sendable (String) -> Bool) {
        for id in answers.keys where matches(id) { answers[id] = nil }
    }
}

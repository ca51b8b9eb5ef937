import AuthService
import Foundation
import Logging
import Metrics
import NIOPosix
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// A real auth service (SQLite, bcrypt cost 10, real signer) driven through its dispatcher without sockets.
struct AuthHarness {
    let components: AuthComponents
    let clock: TestClock
    let rpc: RPCClient

    static let logger: Logger = {
        var logger = Logger(label: "auth-tests")
        logger.logLevel = .critical
        return logger
    }()

    /// A test configuration: in-memory database unless `databasePath` is given, bcrypt cost 10.
    static func configuration(
        databasePath: String? = nil,
        signingKeyFile: String? = nil,
        bootstrapClient: ClientRegistry.Credentials? = nil,
        dispatchClient: ClientRegistry.Credentials? = nil,
        maxFailedLogins: Int = 10,
        authRateLimit: Int = 120,
        selfRegistration: Bool = true
    ) -> AuthConfiguration {
        AuthConfiguration(
            databasePath: databasePath,
            signingKeyFile: signingKeyFile,
            bcryptCost: 10,
            bootstrapClient: bootstrapClient,
            dispatchClient: dispatchClient,
            maxFailedLogins: maxFailedLogins,
            authRateLimit: authRateLimit,
            selfRegistration: selfRegistration
        )
    }

    static func make(
        _ configuration: AuthConfiguration = configuration(), clock: TestClock = TestClock(),
        postgres: PostgresServiceDatabase? = nil, passwordThreadPool: NIOThreadPool = .singleton,
        logger: Logger = AuthHarness.logger, metrics: any MetricsFactory = NOOPMetricsHandler.instance,
        erasurePeers: (any ErasurePeers)? = nil
    ) async throws -> AuthHarness {
        let database =
            try postgres.map(ServiceDatabase.postgres)
            ?? ServiceDatabase.open(configuration, schema: AuthMigrations.schema, logger: logger)
        let components = try await AuthComponents.make(
            configuration: configuration, database: database, logger: logger, passwordThreadPool: passwordThreadPool,
            now: { clock.now }, metrics: metrics, erasurePeers: erasurePeers)
        let dispatcher = components.dispatcher
        let rpc = RPCClient(
            transport: InProcessTransport(
                dispatcher: { dispatcher },
                context: { RPCRequestContext(bearerToken: $0, logger: AuthHarness.logger) }
            ),
            peerName: "auth"
        )
        return AuthHarness(components: components, clock: clock, rpc: rpc)
    }

    /// A client whose calls come from `address`, as `RPCServerBuilder` would report a socket's peer.
    func rpc(from address: String) -> RPCClient {
        let dispatcher = components.dispatcher
        return RPCClient(
            transport: InProcessTransport(
                dispatcher: { dispatcher },
                context: { RPCRequestContext(bearerToken: $0, logger: AuthHarness.logger, clientAddress: address) }
            ),
            peerName: "auth"
        )
    }

    /// Posts a raw body (e.g. a batch) from `address`; returns the response body.
    func post(_ body: String, from address: String) async -> Data? {
        await components.dispatcher.handle(
            body: Data(body.utf8),
            context: RPCRequestContext(bearerToken: nil, logger: AuthHarness.logger, clientAddress: address))
    }

    /// A verifier as notification-store and push-dispatch run it, fetching keys with `auth.keys`.
    func verifier(now: @escaping @Sendable () -> Date = { Date() }) -> AccessTokenVerifier {
        let rpc = rpc
        return AccessTokenVerifier(now: now, logger: Self.logger) { try await rpc.call(Auth.Keys.self, Empty()).keys }
    }

    @discardableResult
    func register(_ username: String, _ password: String = "correct horse") async throws -> String {
        try await rpc.call(Auth.Register.self, .init(username: username, password: password)).userId
    }

    func login(_ username: String, _ password: String = "correct horse", from address: String? = nil) async throws
        -> Auth.TokenGrant
    {
        try await (address.map(rpc(from:)) ?? rpc).call(Auth.Login.self, .init(username: username, password: password))
    }

    func clientToken(_ clientID: String, _ secret: String, from address: String) async throws -> Auth.ClientToken.Result
    {
        try await rpc(from: address).call(Auth.ClientToken.self, .init(clientId: clientID, clientSecret: secret))
    }

    func refresh(_ token: String) async throws -> Auth.TokenGrant {
        try await rpc.call(Auth.Refresh.self, .init(refreshToken: token))
    }
}

/// The JSON header of a JWT.
struct TokenHeader: Decodable {
    var alg: String
    var kid: String?

    init(of token: String) throws {
        let encoded = try #require(token.split(separator: ".").first.map(String.init))
        let data = try #require(Data(base64URLEncoded: encoded))
        self = try JSONDecoder().decode(TokenHeader.self, from: data)
    }
}

extension AuthHarness {
    /// Runs `count` attempts at once and returns the JSON-RPC error code each ended with (0 when one succeeded, -1
    /// for an error that is not an `RPCError`), in completion order.
    static func concurrentOutcomes(_ count: Int, _ attempt: @escaping @Sendable (Int) async throws -> Void) async
        -> [Int]
    {
        await withTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                group.addTask {
                    do {
                        try await attempt(index)
                        return 0
                    } catch let error as RPCError {
                        return error.code
                    } catch {
                        return -1
                    }
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
    }
}

import Foundation
import Logging
import ServiceCore
import SharedModels
import Synchronization
import Testing

/// A stand-in for the auth service that serves only `auth.keys`; any other auth method fails the test loudly.
/// It can be switched "down", when calls fail as a real unreachable peer's would (`-32050`).
final class FakeAuth: Sendable {
    private struct State {
        var keys: [Auth.PublicJWK]
        var isUp = true
        var requestCount = 0
    }

    private let state: Mutex<State>

    init(keys: [Auth.PublicJWK], isUp: Bool = true) {
        state = Mutex(State(keys: keys, isUp: isUp))
    }

    /// How many calls reached this fake (up or down).
    var requestCount: Int { state.withLock { $0.requestCount } }

    /// Makes calls succeed (`true`) or fail as if auth were unreachable (`false`).
    func setUp(_ isUp: Bool) {
        state.withLock { $0.isUp = isUp }
    }

    /// A client to this fake, as the store's composition root receives one.
    var client: RPCClient {
        RPCClient(transport: Transport(auth: self), peerName: "auth")
    }

    private var dispatcher: RPCDispatcher {
        var dispatcher = RPCDispatcher()
        dispatcher.register(Auth.Keys.self) { [self] _, _ in
            Auth.Keys.Result(keys: state.withLock { $0.keys })
        }
        Self.refuse(Auth.Register.self, in: &dispatcher)
        Self.refuse(Auth.Login.self, in: &dispatcher)
        Self.refuse(Auth.Refresh.self, in: &dispatcher)
        Self.refuse(Auth.Logout.self, in: &dispatcher)
        Self.refuse(Auth.ClientToken.self, in: &dispatcher)
        return dispatcher
    }

    private static func refuse<M: RPCMethod>(_ method: M.Type, in dispatcher: inout RPCDispatcher) {
        dispatcher.register(method) { _, _ in
            Issue.record("FakeAuth: the store must not call \(M.name)")
            throw RPCError.internalError
        }
    }

    private struct Transport: RPCTransport {
        let auth: FakeAuth

        func post(_ body: Data, bearerToken: String?) async throws -> Data? {
            let isUp = auth.state.withLock { state in
                state.requestCount += 1
                return state.isUp
            }
            guard isUp else { throw RPCError.unavailable("auth", "connection refused") }
            let context = RPCRequestContext(bearerToken: bearerToken, logger: .silent)
            return await auth.dispatcher.handle(body: body, context: context)
        }
    }
}

extension Logger {
    /// A logger that drops everything, so expected failures do not clutter test output.
    static let silent = Logger(label: "StoreServiceTests") { _ in SwiftLogNoOpLogHandler() }
}

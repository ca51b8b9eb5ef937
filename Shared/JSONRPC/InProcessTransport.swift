import Foundation

/// A transport straight into a dispatcher in the same process: client and server tested together without sockets.
public struct InProcessTransport: RPCTransport {
    let dispatcher: @Sendable () -> RPCDispatcher
    let context: @Sendable (String?) -> RPCRequestContext

    /// - Parameters:
    ///   - dispatcher: the server's dispatcher (a closure so it may be built after the transport).
    ///   - context: builds the request context from the bearer token, as the HTTP glue would.
    public init(
        dispatcher: @escaping @Sendable () -> RPCDispatcher,
        context: @escaping @Sendable (String?) -> RPCRequestContext
    ) {
        self.dispatcher = dispatcher
        self.context = context
    }

    public func post(_ body: Data, bearerToken: String?) async throws -> Data? {
        await dispatcher().handle(body: body, context: context(bearerToken))
    }
}

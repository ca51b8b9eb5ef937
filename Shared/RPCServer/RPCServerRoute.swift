import HTTP2Core

/// A service-specific route on the HTTP/2 core (e.g. push-dispatch's event stream): the reply to a request it
/// serves, `nil` for a request that is not its own. Called on the connection's event loop: it must not block.
public typealias RPCServerRoute = @Sendable (HTTP2Request, HTTP2Responder) -> HTTP2Reply?

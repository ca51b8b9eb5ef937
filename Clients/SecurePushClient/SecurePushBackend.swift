import HTTP2Client
import Logging
import SharedModels

/// An app backend's client: authenticates as a service client (`auth.clientToken`) and calls `push.send`/`push.status`.
public actor SecurePushBackend {
    private let authHTTP: HTTP2Client
    private let dispatchHTTP: HTTP2Client
    private let auth: RPCClient
    let dispatch: RPCClient
    private let tokens: ClientCredentialsTokenProvider

    public init(
        authURL: String,
        dispatchURL: String,
        clientID: String,
        clientSecret: String,
        configuration: HTTP2ClientConfiguration = .init(),
        logger: Logger
    ) throws {
        authHTTP = try HTTP2Client(baseURL: authURL, configuration: configuration, logger: logger)
        dispatchHTTP = try HTTP2Client(baseURL: dispatchURL, configuration: configuration, logger: logger)
        auth = RPCClient(transport: HTTP2RPCTransport(client: authHTTP, peerName: "auth"), peerName: "auth")
        dispatch = RPCClient(
            transport: HTTP2RPCTransport(client: dispatchHTTP, peerName: "push-dispatch"), peerName: "push-dispatch")
        // Concurrent sends share one token fetch (one bcrypt check on auth), and a wrong secret stays auth's -32001.
        tokens = ClientCredentialsTokenProvider(
            auth: auth, clientID: clientID, clientSecret: clientSecret, refreshMargin: 30, refusalIsUnavailable: false)
    }

    /// Sends a secure notification: the payload goes to the store, only its id to the recipient's devices.
    public func send(_ params: Push.Send.Params) async throws -> Push.Send.Result {
        try await dispatch.call(Push.Send.self, params, token: try await accessToken())
    }

    /// Sends one secure notification to each of up to 10,000 users in one call (`push.send` with `recipientIds`): one
    /// notification per user auth knows; the others come back in `unknownRecipientIds`. With an idempotency key a
    /// retry after any failure ends with exactly one notification per recipient.
    public func send(_ params: Push.SendToMany.Params) async throws -> Push.SendToMany.Result {
        try await dispatch.call(Push.SendToMany.self, params, token: try await accessToken())
    }

    /// Withdraws a scheduled send before it is due (`push.cancel`): `-32009` once it was sent, `-32004` for a
    /// notification this client did not send.
    public func cancel(notificationId: String) async throws {
        _ = try await dispatch.call(
            Push.Cancel.self, .init(notificationId: notificationId), token: try await accessToken())
    }

    /// The user with this id or username (`auth.lookupUser`); `-32004` when auth knows no such user.
    public func lookupUser(_ params: Auth.LookupUser.Params) async throws -> Auth.LookupUser.Result {
        try await auth.call(Auth.LookupUser.self, params, token: try await accessToken())
    }

    /// Erases a user and everything about them in every service (`users.delete`; this client needs scope
    /// `users:delete`).
    public func deleteUser(_ params: Users.Delete.Params) async throws -> Users.Delete.Result {
        try await auth.call(Users.Delete.self, params, token: try await accessToken())
    }

    /// The delivery state of a notification this client sent.
    public func status(notificationId: String) async throws -> Push.Status.Result {
        try await dispatch.call(Push.Status.self, .init(notificationId: notificationId), token: try await accessToken())
    }

    /// Closes the connections.
    public func shutdown() async {
        await authHTTP.shutdown()
        await dispatchHTTP.shutdown()
    }

    func accessToken() async throws -> String {
        try await tokens.token()
    }
}

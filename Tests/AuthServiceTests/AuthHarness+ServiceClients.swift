import AuthService
import SharedModels

extension AuthHarness {
    /// The app backend's client (`push:send`) that ``withServiceClients()`` provisions.
    static let backendClient = ClientRegistry.Credentials(clientId: "app-backend", secret: "backend-secret-1")
    /// push-dispatch's client (`store:write sessions:read users:read`) that ``withServiceClients()`` provisions.
    static let dispatchClient = ClientRegistry.Credentials(clientId: "push-dispatch", secret: "dispatch-secret-1")

    /// An auth with both service clients provisioned, as a deployment's start-up does.
    static func withServiceClients() async throws -> AuthHarness {
        try await make(configuration(bootstrapClient: backendClient, dispatchClient: dispatchClient))
    }

    /// An access token for `client` from `auth.clientToken`.
    func clientToken(_ client: ClientRegistry.Credentials) async throws -> String {
        try await rpc.call(Auth.ClientToken.self, .init(clientId: client.clientId, clientSecret: client.secret))
            .accessToken
    }
}

import Foundation
import HTTP2Client
import Logging
import SecurePushClient
import SecurePushStack
import ServiceCore
import SharedModels
import TestSupport
import Testing
import Tracing

/// Transport security a test runs under.
enum TransportMode: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case cleartext
    case tls

    var testDescription: String { rawValue }
}

/// A throwaway stack for one test: its own data directory, ephemeral ports, a backend client.
struct TestStack {
    let stack: LocalStack
    let environment: [String: String]
    let certificates: TestCertificates?
    let dataDirectory: String
    let backendClientID = "test-backend"
    let backendClientSecret: String
    let logger: Logger

    var endpoints: SecurePushEndpoints {
        SecurePushEndpoints(
            auth: stack.authURL, store: stack.storeURL, dispatch: stack.dispatchURL,
            caFile: certificates?.caCertificatePath)
    }

    static func logger() -> Logger {
        var logger = Logger(label: "e2e")
        logger.logLevel = .critical
        return logger
    }

    /// The environment every service of a test reads.
    static func environment(
        mode: TransportMode, dataDirectory: String, backendSecret: String, certificates: TestCertificates?
    ) -> [String: String] {
        var environment = [
            "SECUREPUSH_DATA_DIR": dataDirectory,
            "SECUREPUSH_HOST": "127.0.0.1",
            "SECUREPUSH_AUTH_PORT": "0", "SECUREPUSH_STORE_PORT": "0", "SECUREPUSH_DISPATCH_PORT": "0",
            "SECUREPUSH_BOOTSTRAP_CLIENT_ID": "test-backend", "SECUREPUSH_BOOTSTRAP_CLIENT_SECRET": backendSecret,
            "SECUREPUSH_DISPATCH_CLIENT_ID": "push-dispatch",
            "SECUREPUSH_DISPATCH_CLIENT_SECRET": "dispatch-secret-for-tests-0123456789",
            "SECUREPUSH_STORE_CLIENT_ID": "notification-store",
            "SECUREPUSH_STORE_CLIENT_SECRET": "store-secret-for-tests-0123456789",
            "SECUREPUSH_BCRYPT_COST": "10",
        ]
        if mode == .tls, let certificates {
            environment["SECUREPUSH_TLS_CERT_FILE"] = certificates.serverCertificatePath
            environment["SECUREPUSH_TLS_KEY_FILE"] = certificates.serverKeyPath
            environment["SECUREPUSH_CA_FILE"] = certificates.caCertificatePath
        }
        return environment
    }

    static func start(
        _ mode: TransportMode, extra: [String: String] = [:], tracer: (any Tracer)? = nil
    ) async throws -> TestStack {
        let directory = TemporaryDirectory.processRootURL.appendingPathComponent(
            "securepush-e2e-\(UUID().uuidString)"
        ).path
        let certificates = mode == .tls ? try TestCertificates.make() : nil
        let secret = "backend-secret-\(UUID().uuidString)"
        var environment = environment(
            mode: mode, dataDirectory: directory, backendSecret: secret, certificates: certificates)
        environment.merge(extra) { _, new in new }
        let logger = logger()
        let stack = try await LocalStack.start(environment: environment, logger: logger, tracer: tracer)
        return TestStack(
            stack: stack, environment: environment, certificates: certificates, dataDirectory: directory,
            backendClientSecret: secret, logger: logger)
    }

    func stop() async {
        await stack.stop()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    /// Runs `body` on a fresh stack and stops the stack afterwards, awaited, whether `body` threw or not.
    static func with<T>(
        _ mode: TransportMode, extra: [String: String] = [:], tracer: (any Tracer)? = nil,
        _ body: (TestStack) async throws -> T
    ) async throws -> T {
        let stack = try await start(mode, extra: extra, tracer: tracer)
        do {
            let result = try await body(stack)
            await stack.stop()
            return result
        } catch {
            await stack.stop()
            throw error
        }
    }

    /// A device SDK signed in as a fresh user; returns it with the user id.
    func signedInDevice(username: String = "user-\(UUID().uuidString.prefix(8).lowercased())") async throws -> (
        SecurePushDevice, String
    ) {
        let device = try SecurePushDevice(endpoints: endpoints, logger: logger)
        let password = "password-\(UUID().uuidString)"
        let userId = try await device.createAccount(username: username, password: password)
        try await device.signIn(username: username, password: password)
        return (device, userId)
    }

    func backend() throws -> SecurePushBackend {
        try SecurePushBackend(
            authURL: endpoints.auth, dispatchURL: endpoints.dispatch, clientID: backendClientID,
            clientSecret: backendClientSecret,
            configuration: .init(trustRootsPEMFile: certificates?.caCertificatePath), logger: logger)
    }

    /// A raw typed client for one service, for calls with hand-made tokens.
    func rpcClient(_ url: String, name: String) throws -> PeerClient {
        try PeerClient(url: url, peerName: name, caFile: certificates?.caCertificatePath, logger: logger)
    }
}

/// Waits for the first element of an id stream, failing after `timeout`.
func first(_ ids: AsyncThrowingStream<String, any Error>, timeout: Duration = .seconds(10)) async throws -> String? {
    try await withThrowingTaskGroup(of: String?.self) { group in
        group.addTask {
            for try await id in ids { return id }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}

/// Collects `count` elements of an id stream, or as many as arrived within `timeout`.
func collect(_ count: Int, from ids: AsyncThrowingStream<String, any Error>, timeout: Duration = .seconds(10))
    async throws -> [String]
{
    try await withThrowingTaskGroup(of: [String].self) { group in
        let collected = Collected()
        group.addTask {
            for try await id in ids {
                await collected.append(id)
                if await collected.count >= count { break }
            }
            return await collected.items
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return await collected.items
        }
        defer { group.cancelAll() }
        return try await group.next() ?? []
    }
}

actor Collected {
    var items: [String] = []
    var count: Int { items.count }
    func append(_ item: String) { items.append(item) }
}

import APNsMock
import Foundation
import Logging
import SecurePushClient
import SecurePushURLSession
import SharedModels
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The Notification Service Extension flow (issue 28): `SecurePushNotification.resolve(userInfo:device:)` with the
/// `userInfo` our APNs provider really sent (captured by the APNs mock), over both of the core's transports.
@Suite("The Notification Service Extension flow, on APNs pushes")
struct NotificationServiceExtensionTests {
    /// The transport the extension's device uses (the app's is HTTP/2 throughout).
    enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case http2, urlSession
        var testDescription: String { rawValue }
    }

    @Test(
        "the payload with a valid session or with only the device proof; 'already read' after a read-once fetch; the generic text for malformed pushes, a store slower than the budget and an unregistered device",
        arguments: Transport.allCases)
    func resolve(_ transport: Transport) async throws {
        let state = APNsMockState()
        try await withAPNsMock(state: state) { mock in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let logger = Logger(label: "nse") { _ in SwiftLogNoOpLogHandler() }
            let backendSecret = "backend-secret-\(UUID().uuidString)"
            let stack = try await startStack(
                against: mock, in: URL(fileURLWithPath: directory.path), backendSecret: backendSecret,
                logger: logger)
            let app = try SecurePushDevice(
                endpoints: SecurePushEndpoints(auth: stack.authURL, store: stack.storeURL, dispatch: stack.dispatchURL),
                logger: logger)
            let backend = try SecurePushBackend(
                authURL: stack.authURL, dispatchURL: stack.dispatchURL, clientID: "backend",
                clientSecret: backendSecret,
                logger: logger)
            /// The extension's device: what the app left in storage it shares with the extension.
            func extensionDevice(session: DeviceSession?, store: String = stack.storeURL) throws -> SecurePushDevice {
                switch transport {
                case .http2:
                    SecurePushDevice(
                        transport: try HTTP2DeviceTransport(
                            endpoints: SecurePushEndpoints(
                                auth: stack.authURL, store: store, dispatch: stack.dispatchURL),
                            logger: logger),
                        session: session, logger: logger)
                case .urlSession:
                    SecurePushDevice(
                        transport: URLSessionTransport(
                            auth: try #require(URL(string: stack.authURL)), store: try #require(URL(string: store)),
                            dispatch: try #require(URL(string: stack.dispatchURL))),
                        session: session, logger: logger)
                }
            }
            /// Sends `params` and returns the `userInfo` APNs delivered for it.
            func pushed(_ params: Push.Send.Params) async throws -> [AnyHashable: Any] {
                let sent = try await backend.send(params)
                #expect(await eventually { state.requests.contains { $0.bodyText.contains(sent.notificationId) } })
                let request = try #require(state.requests.first { $0.bodyText.contains(sent.notificationId) })
                return try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
            }
            var opened: [SecurePushDevice] = [app]
            do {
                let userId = try await app.createAccount(username: "nse-user", password: "long enough password")
                try await app.signIn(username: "nse-user", password: "long enough password")
                let key = DeviceKey()
                let deviceId = try await app.register(
                    device: .init(platform: .apns, token: deviceToken(11), apnsMode: "alert"), key: key)
                let session = try #require(await app.session)

                // A valid session: the payload, sealed to the device and opened; the alert's title kept.
                let userInfo = try await pushed(
                    .init(recipientId: userId, payload: "Your code is 424242", sealedOnly: true))
                #expect(((userInfo["aps"] as? [String: Any])?["mutable-content"] as? Int) == 1)
                let withSession = try extensionDevice(session: session)
                opened.append(withSession)
                await withSession.useSealedDevice(id: deviceId, key: key)
                let resolved = await SecurePushNotification.resolve(userInfo: userInfo, device: withSession)
                #expect(
                    resolved == ResolvedNotification(title: "New message", body: "Your code is 424242", kind: .payload))

                // The session expired: the device proof alone, and nothing refreshed (the app's refresh token is
                // not spent by the extension).
                var expired = session
                expired.accessTokenExpiresAt = Date(timeIntervalSinceNow: -60)
                let withProof = try extensionDevice(session: expired)
                opened.append(withProof)
                await withProof.useSealedDevice(id: deviceId, key: key)
                #expect(await SecurePushNotification.resolve(userInfo: userInfo, device: withProof).kind == .payload)
                #expect(await withProof.session == expired)

                // Read once: the first resolve shows it, the second says it was read.
                let once = try await pushed(
                    .init(recipientId: userId, payload: "One-time code 777", sealedOnly: true, readOnce: true))
                let first = await SecurePushNotification.resolve(userInfo: once, device: withSession)
                #expect(first.body == "One-time code 777")
                let second = await SecurePushNotification.resolve(userInfo: once, device: withSession)
                #expect(
                    second
                        == ResolvedNotification(
                            title: "New message", body: "This message was already read", kind: .alreadyRead))

                // Malformed pushes: the generic text, never a crash.
                let texts = SecurePushNotification.Texts(generic: "Neue Nachricht", alreadyRead: "Schon gelesen")
                for malformed: [AnyHashable: Any] in [
                    [:], ["secureId": 42], ["secureId": "not-a-uuid"], ["secureId": ["a"], "aps": "x"],
                    ["secureId": UUID().uuidString.lowercased()],  // no such notification
                ] {
                    let resolved = await SecurePushNotification.resolve(
                        userInfo: malformed, device: withSession, texts: texts)
                    #expect(resolved.kind == .generic && resolved.body == "Neue Nachricht", "\(malformed)")
                }

                // A store that accepts the connection and never answers: the generic text within the budget.
                let silent = try SilentListener()
                defer { silent.close() }
                let stalled = try extensionDevice(session: session, store: "http://127.0.0.1:\(silent.port)")
                opened.append(stalled)
                await stalled.useSealedDevice(id: deviceId, key: key)
                let start = ContinuousClock.now
                let late = await SecurePushNotification.resolve(
                    userInfo: userInfo, device: stalled, timeBudget: .milliseconds(500))
                #expect(late.kind == .generic)
                #expect(ContinuousClock.now - start < .seconds(5))

                // The device unregistered (a lost phone): its key reads nothing any more.
                try await app.unregister(deviceId: deviceId)
                #expect(
                    await eventually {
                        await SecurePushNotification.resolve(userInfo: userInfo, device: withProof).kind == .generic
                    })
            } catch {
                for device in opened { await device.shutdown() }
                await backend.shutdown()
                await stack.stop()
                throw error
            }
            for device in opened { await device.shutdown() }
            await backend.shutdown()
            await stack.stop()
        }
    }
}

/// A TCP listener that accepts connections (the kernel does, from its backlog) and never reads or answers them.
struct SilentListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else {
            _ = Glibc.close(descriptor)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}

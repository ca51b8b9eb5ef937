import Crypto
import Foundation
import Hummingbird
import JSONRPC
import Logging
import SecurePushClient
import SharedModels
import Synchronization
import TestSupport
import Testing

/// The device core opens exactly what the store seals, as the browser SDK does: `Tests/Fixtures/sealed-copies.json`
/// (shared with Tests/Browser/test_hpke.py) served by a store that answers from the fixture, through
/// `SecurePushNotification.resolve` (issue 28).
@Suite("The device core resolves the shared sealed-copies fixture")
struct SealedFixtureResolveTests {
    typealias Fixture = SealedCopiesFixture

    /// A store that answers `store.get` with the fixture's sealed copy of the notification asked for (or `-32004`).
    final class FixtureStore: SecurePushTransport {
        let copies: [String: Fixture.Copy]
        let asked = Mutex<[String]>([])
        /// The extra headers of each store transport made (the device proof).
        let proofs = Mutex<[String]>([])
        /// When set, the store never answers (until the call is cancelled).
        let stalls: Bool

        init(copies: [String: Fixture.Copy], stalls: Bool = false) {
            self.copies = copies
            self.stalls = stalls
        }

        struct Answering: RPCTransport {
            let copies: [String: Fixture.Copy]
            let stalls: Bool
            let asked: @Sendable (String) -> Void

            func post(_ body: Data, bearerToken: String?) async throws -> Data? {
                if stalls {
                    // Silent until the call is cancelled.
                    try? await Task.sleep(for: .seconds(3600))
                }
                let request = try JSONDecoder().decode(Request.self, from: body)
                asked(request.params.notificationId)
                let outcome: RPCResponse.Outcome =
                    if let copy = copies[request.params.notificationId] {
                        .result(
                            Store.StoredNotification(
                                notificationId: copy.notificationId,
                                sealed: .init(deviceId: copy.deviceId, enc: copy.enc, ciphertext: copy.ciphertext),
                                createdAt: Date(), expiresAt: Date().addingTimeInterval(600)))
                    } else {
                        .error(.notFound("notification"))
                    }
                return try RPCCodec.makeEncoder().encode(RPCResponse(id: request.id, outcome: outcome))
            }

            struct Request: Decodable {
                var id: JSONValue
                var params: Store.Get.Params
            }
        }

        func rpc(_ service: SecurePushService, extraHeaders: [(String, String)]) -> any RPCTransport {
            for (name, value) in extraHeaders where name == "securepush-device-proof" {
                proofs.withLock { $0.append(value) }
            }
            return Answering(copies: copies, stalls: stalls) { [self] id in asked.withLock { $0.append(id) } }
        }

        func eventStream(
            path: String, headers: [(String, String)], opened: @Sendable () -> Void,
            received: @Sendable (Data) throws -> Void
        ) async throws -> Int { 404 }

        func shutdown() async {}
    }

    @Test(
        "every copy opens to its plaintext with the fixture's device key; another device's copy gives the generic text")
    func resolvesFixture() async throws {
        let fixture = try SealedCopiesFixture.read()
        let der = try #require(Data(strictBase64URL: fixture.devicePrivateKeyPKCS8))
        let key = try DeviceKey(
            rawRepresentation: try P256.KeyAgreement.PrivateKey(derRepresentation: der).rawRepresentation)
        let all = fixture.copies + [fixture.otherDevice]
        let store = FixtureStore(copies: Dictionary(uniqueKeysWithValues: all.map { ($0.notificationId, $0) }))
        // No session at all: the extension fetches with the device proof.
        let device = SecurePushDevice(transport: store, logger: Logger(label: "test"))
        let deviceId = try #require(fixture.copies.first?.deviceId)
        await device.useSealedDevice(id: deviceId, key: key)
        for copy in fixture.copies {
            let resolved = await SecurePushNotification.resolve(
                userInfo: ["secureId": copy.notificationId, "aps": ["alert": ["title": "New message"]]], device: device)
            #expect(resolved == ResolvedNotification(title: "New message", body: copy.plaintext, kind: .payload))
        }
        let other = await SecurePushNotification.resolve(
            userInfo: ["secureId": fixture.otherDevice.notificationId], device: device)
        #expect(other.kind == .generic)
        #expect(store.asked.withLock { $0 }.count == all.count)
        // No session: every fetch carried a device proof.
        #expect(store.proofs.withLock { $0 }.count == all.count)
    }

    @Test("the caller's cancellation (iOS's deadline) answers at once with the generic text, the store still silent")
    func cancelledByTheCaller() async throws {
        let fixture = try SealedCopiesFixture.read()
        let copy = try #require(fixture.copies.first)
        let store = FixtureStore(copies: [copy.notificationId: copy], stalls: true)
        let device = SecurePushDevice(transport: store, logger: Logger(label: "test"))
        await device.useSealedDevice(id: copy.deviceId, key: DeviceKey())
        let start = ContinuousClock.now
        let resolving = Task {
            await SecurePushNotification.resolve(
                userInfo: ["secureId": copy.notificationId], device: device, timeBudget: .seconds(600))
        }
        try await Task.sleep(for: .milliseconds(200))
        resolving.cancel()
        let resolved = await resolving.value
        #expect(resolved.kind == .generic)
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test(
        "the same fixture over the HTTP/2 transport: a store on TLS and h2 serves the copies; each fetch carries a device proof"
    )
    func overHTTP2() async throws {
        let fixture = try SealedCopiesFixture.read()
        let all = fixture.copies + [fixture.otherDevice]
        let answering = FixtureStore.Answering(
            copies: Dictionary(uniqueKeysWithValues: all.map { ($0.notificationId, $0) }), stalls: false,
            asked: { _ in }
        )
        let proofs = Mutex(0)
        let router = Router()
        router.post("/rpc") { request, _ -> Response in
            let call = try await MockRequest(request)
            if call.headers["securepush-device-proof"] != nil { proofs.withLock { $0 += 1 } }
            let answer = try await answering.post(call.body, bearerToken: nil) ?? Data()
            return .mock(.ok, body: String(decoding: answer, as: UTF8.self))
        }
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let der = try #require(Data(strictBase64URL: fixture.devicePrivateKeyPKCS8))
        let key = try DeviceKey(
            rawRepresentation: try P256.KeyAgreement.PrivateKey(derRepresentation: der).rawRepresentation)
        try await withMockServer(certificates: certificates, router: router) { port in
            let base = "https://127.0.0.1:\(port)"
            let device = try SecurePushDevice(
                endpoints: SecurePushEndpoints(
                    auth: base, store: base, dispatch: base, caFile: certificates.caCertificatePath),
                logger: Logger(label: "test"))
            await device.useSealedDevice(id: try #require(fixture.copies.first?.deviceId), key: key)
            for copy in fixture.copies {
                let resolved = await SecurePushNotification.resolve(
                    userInfo: ["secureId": copy.notificationId], device: device)
                #expect(resolved.kind == .payload && resolved.body == copy.plaintext, "\(resolved)")
            }
            let other = await SecurePushNotification.resolve(
                userInfo: ["secureId": fixture.otherDevice.notificationId], device: device)
            #expect(other.kind == .generic)
            await device.shutdown()
        }
        #expect(proofs.withLock { $0 } == all.count)
    }
}

import APNsMock
import DispatchService
import Foundation
import ServiceCore
import Testing

@Suite("What the APNs provider sends")
struct APNsPayloadTests {
    static let expiry = Date(timeIntervalSince1970: 1_900_000_123)

    @Test("alert mode: the exact alert payload with the fallback text, push type alert, priority 10")
    func alertMode() async throws {
        try await withAPNsMock { mock in
            let token = deviceToken(10)
            let id = "5f0c2a6e-0a55-4f39-9d0e-3a8c1f1d2b7e"
            let outcome = try await withProvider(mock.configuration(mode: .alert)) { provider in
                await provider.deliver(makeJob(notificationID: id, token: token, expiresAt: Self.expiry))
            }
            #expect(outcome == .sent)
            let request = try #require(mock.state.requests.first)
            #expect(
                request.bodyText
                    == #"{"aps":{"alert":{"body":"You have a new secure message","title":"New message"},"#
                    + #""mutable-content":1},"secureId":"5f0c2a6e-0a55-4f39-9d0e-3a8c1f1d2b7e"}"#
            )
            #expect(request.deviceToken == token)
            #expect(request.headers["apns-push-type"] == "alert")
            #expect(request.headers["apns-priority"] == "10")
            #expect(request.headers["apns-topic"] == mock.topic)
            #expect(request.headers["apns-expiration"] == "1900000123")
            #expect(request.headers["authorization"] == "bearer \(request.jwt ?? "-")")
            #expect(request.headers["apns-collapse-id"] == nil)
            let apnsID = try #require(request.headers["apns-id"])
            #expect(UUID(uuidString: apnsID) != nil)
        }
    }

    @Test("background mode: exactly the classic secure-push payload, push type background, priority 5")
    func backgroundMode() async throws {
        try await withAPNsMock { mock in
            let token = deviceToken(11)
            let id = "0d6f7a1c-9b0e-4e57-8f7c-2c5e8b3a9d10"
            let outcome = try await withProvider(mock.configuration(mode: .background)) { provider in
                await provider.deliver(makeJob(notificationID: id, token: token, expiresAt: Self.expiry))
            }
            #expect(outcome == .sent)
            let request = try #require(mock.state.requests.first)
            #expect(
                request.bodyText
                    == #"{"aps":{"content-available":1},"secureId":"0d6f7a1c-9b0e-4e57-8f7c-2c5e8b3a9d10"}"#)
            #expect(request.headers["apns-push-type"] == "background")
            #expect(request.headers["apns-priority"] == "5")
            #expect(request.headers["apns-topic"] == mock.topic)
            #expect(request.headers["apns-expiration"] == "1900000123")
        }
    }

    @Test("the configured fallback text is sent JSON-escaped, and nothing but it and the id")
    func onlyIDAndFallbackText() async throws {
        let title = #"Nouveau "message" ✉️"#
        let body = "Ouvrez l'app\\pour le lire"
        try await withAPNsMock { mock in
            let token = deviceToken(12)
            let ids = (0..<3).map { _ in UUID().uuidString.lowercased() }
            try await withProvider(mock.configuration(alertTitle: title, alertBody: body)) { provider in
                for id in ids {
                    #expect(await provider.deliver(makeJob(notificationID: id, token: token)) == .sent)
                }
            }
            let requests = mock.state.requests
            #expect(requests.count == ids.count)
            for (request, id) in zip(requests, ids) {
                let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
                #expect(Set(json.keys) == ["aps", "secureId"])
                #expect(json["secureId"] as? String == id)
                // Every string anywhere in the body is the id or the operator's text.
                #expect(Set(strings(in: json)) == [id, title, body])
                #expect(Set(numbers(in: json)) == [1])
            }
        }
    }

    @Test("every attempt of one delivery carries the same apns-id; other deliveries carry other ids")
    func stableAPNsID() async throws {
        try await withAPNsMock { mock in
            let token = deviceToken(13)
            mock.state.script(token, [.serviceUnavailable])
            let job = makeJob(token: token)
            var otherDevice = job
            otherDevice.deviceID = UUID().uuidString.lowercased()
            var otherNotification = job
            otherNotification.notificationID = UUID().uuidString.lowercased()
            try await withProvider(mock.configuration()) { provider in
                #expect(await provider.deliver(job) == .retry(after: .zero, reason: "ServiceUnavailable"))
                var retried = job
                retried.attempts = 1
                #expect(await provider.deliver(retried) == .sent)
                #expect(await provider.deliver(otherDevice) == .sent)
                #expect(await provider.deliver(otherNotification) == .sent)
            }
            let ids = mock.state.requests.compactMap { $0.headers["apns-id"] }
            #expect(ids.count == 4)
            #expect(ids[0] == ids[1])
            #expect(Set(ids).count == 3)
        }
    }

    @Test("fallback text that would push the payload past 4096 bytes is refused when the provider is made")
    func oversizedFallbackText() async throws {
        try await withAPNsMock { mock in
            let configuration = mock.configuration(alertBody: String(repeating: "x", count: 4000))
            #expect(throws: ConfigurationError.self) { try configuration.validate() }
            #expect(throws: ConfigurationError.self) {
                _ = try APNsProvider(configuration: configuration, logger: .quiet)
            }
            // Background pushes carry no text, so the same text does not matter there.
            var background = configuration
            background.mode = .background
            try background.validate()
        }
    }
}

private func strings(in value: Any) -> [String] {
    switch value {
    case let string as String: [string]
    case let object as [String: Any]: object.values.flatMap(strings(in:))
    case let array as [Any]: array.flatMap(strings(in:))
    default: []
    }
}

private func numbers(in value: Any) -> [Int] {
    switch value {
    case is String: []
    case let number as NSNumber: [number.intValue]
    case let object as [String: Any]: object.values.flatMap(numbers(in:))
    case let array as [Any]: array.flatMap(numbers(in:))
    default: []
    }
}

import Foundation
import HTTP2Client
import NIOCore

/// One notification to one device, ready to be sent (again, after a token refresh) to APNs.
struct APNsRequest: Sendable {
    /// The stored (lower-case hex) device token.
    var deviceToken: String
    /// The `apns-id`: the same for every attempt of this delivery.
    var apnsID: String
    /// After this APNs stops trying to deliver (`apns-expiration`).
    var expiresAt: Date
    /// The JSON payload (id and fallback text only).
    var body: Data
    /// The mode the body was built for; the push type header follows it.
    var mode: APNsPushMode
    /// The `apns-priority`: the send's priority within what the mode allows (``APNsPushMode/priority(for:)``).
    var priority: Int
    /// The `apns-collapse-id`: the send's collapse id, when it has one.
    var collapseID: String?
}

extension APNsProvider {
    /// Sends `request` with `token` and parses the answer, telling `responses` what came back; throws only
    /// `HTTP2ClientError` or `CancellationError`.
    func send(_ request: APNsRequest, token: APNsProviderToken, responses: ProviderResponses) async throws
        -> APNsResponse
    {
        let mode = request.mode
        var headers: [(String, String)] = [
            ("authorization", "bearer \(token.jwt)"),
            ("apns-topic", configuration.topic),
            ("apns-push-type", mode.pushType),
            ("apns-priority", String(request.priority)),
            ("apns-expiration", String(Int64(max(request.expiresAt.timeIntervalSince1970.rounded(.down), 0)))),
            ("apns-id", request.apnsID),
            ("content-type", "application/json"),
        ]
        if let collapseID = request.collapseID { headers.append(("apns-collapse-id", collapseID)) }
        let answer: APNsResponse
        do {
            answer = APNsResponse(
                try await client.execute(
                    HTTP2Request(
                        method: .POST,
                        path: "/3/device/\(request.deviceToken)",
                        headers: headers,
                        body: ByteBuffer(bytes: request.body)
                    )
                ),
                now: now())
        } catch let error as HTTP2ClientError {
            responses.recordTransportFailure()
            throw error
        }
        responses.record(status: answer.status, reason: answer.reason)
        return answer
    }
}

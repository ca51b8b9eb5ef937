import Foundation
import HTTP2Core
import JSONRPC
import Logging
import NIOCore
import RPCServer
import ServiceCore
import SharedModels

/// `GET /devices/{deviceId}/events`: the direct channel's event stream for the device owner's bearer token.
///
/// Refusals are JSON-RPC error objects with an HTTP status, never the stream: no or a bad token → 401,
/// a token that is not a user's → 403, an unknown device or another user's → 404 (the same body),
/// a device of another platform → 400, a deactivated device → 410, auth's keys unavailable → 503.
///
/// On the HTTP/2 core the checks and the opening drain run in a task per request, which then ends: an open stream is
/// a ``DirectLiveStream`` in the hub (no channel, pipeline or task); the events go out through the stream's
/// ``HTTP2ResponseStream``, paced by the client's flow-control window.
struct DirectEventRoute: Sendable {
    let verifier: AccessTokenVerifier
    let devices: any DeviceRepository
    let deliveries: any DeliveryRepository
    let hub: DirectHub
    /// Sessions auth reported revoked: a token of one opens no stream.
    let revocations: RevokedSessionsFeed?
    let now: @Sendable () -> Date
    let metrics: DispatchMetrics
    /// `securepush_deliveries_total{platform="direct"}`, created once for every stream.
    let deliveryCounts: PerAppCounters
    /// A span for each event written.
    var tracing: DeliveryTracing = .off
    /// The streams' logger.
    var logger: Logger

    /// The route on the core: `GET /devices/{deviceId}/events` is answered through `responder` (`.deferred`), any
    /// other request is not this route's (`nil`).
    func route(_ request: HTTP2Request, _ responder: HTTP2Responder) -> HTTP2Reply? {
        guard request.method == "GET", let deviceID = Self.deviceID(inPath: request.path) else { return nil }
        // Not cancelled when the client goes: a write in progress is still recorded `sent`; the stream ends itself
        // when its response closes (``DirectEventStream/start(writer:)``).
        Task { await serve(request, deviceID: deviceID, responder: responder) }
        return .deferred
    }

    /// The device id of `/devices/{deviceId}/events` (query ignored, percent-decoded); `nil` for any other path.
    static func deviceID(inPath path: String) -> String? {
        let target = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = target.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[1] == "devices", parts[3] == "events", !parts[2].isEmpty
        else { return nil }
        return String(parts[2]).removingPercentEncoding
    }

    private func serve(_ request: HTTP2Request, deviceID: String, responder: HTTP2Responder) async {
        let opened: DirectEventStream
        do {
            switch try await open(request, deviceID: deviceID) {
            case .refused(let response):
                return responder.respond(response)
            case .stream(let stream):
                opened = stream
            }
        } catch {
            logger.error("direct.stream.open_failed", metadata: ["error": "\(error)"])
            return responder.respond(Self.refusal(500, .internalError))
        }
        let body = responder.startStream(
            status: 200, headers: ["content-type": "text/event-stream", "cache-control": "no-cache"])
        // Returns after the opening drain; a failure there (client gone, database) resets the body.
        await opened.start(writer: body)
    }

    /// What a request for `deviceID`'s stream gets: a refusal, or the stream to run.
    private enum Opening {
        case refused(HTTP2Response)
        case stream(DirectEventStream)
    }

    private func open(_ request: HTTP2Request, deviceID: String) async throws -> Opening {
        let principal: Principal
        do {
            principal = try await verifier.verify(
                RPCRequestContext.bearerToken(fromAuthorization: request.headers["authorization"]))
        } catch {
            if error.code == RPCErrorCode.unavailable { return .refused(Self.refusal(503, error)) }
            return .refused(Self.unauthorized(error))
        }
        if let sessionID = principal.sessionID, revocations?.isRevoked(sessionID) == true {
            return .refused(Self.unauthorized(.unauthenticated("session signed out")))
        }
        guard principal.isUser else { return .refused(Self.refusal(403, .forbidden(scope: Scope.user))) }
        // Another user's device and a missing one get the same answer: the route is no existence oracle.
        guard let device = try await devices.device(id: deviceID), device.ownerID == principal.subject else {
            return .refused(Self.refusal(404, DispatchError.deviceNotFound.rpcError))
        }
        guard device.platform == .direct else {
            return .refused(Self.refusal(400, .invalidParams(field: "deviceId", "is not a direct device")))
        }
        guard device.isActive else {
            return .refused(Self.refusal(410, .notFound("device (deactivated; register it again)")))
        }
        return .stream(
            DirectEventStream(
                deviceID: device.id, ownerID: principal.subject, expiresAt: principal.expiresAt,
                sessionID: principal.sessionID, devices: devices, deliveries: deliveries, hub: hub,
                now: now, logger: logger, metrics: metrics,
                deliveryCounts: deliveryCounts, tracing: tracing))
    }

    /// 401 with `WWW-Authenticate: Bearer`.
    private static func unauthorized(_ error: RPCError) -> HTTP2Response {
        var response = refusal(401, error)
        response.headers.add("www-authenticate", "Bearer")
        return response
    }

    static func refusal(_ status: Int, _ error: RPCError) -> HTTP2Response {
        let body = (try? RPCCodec.makeEncoder().encode(RPCResponse(id: .null, outcome: .error(error)))) ?? Data()
        return HTTP2Response(
            status: status, headers: ["content-type": "application/json"], body: ByteBuffer(bytes: body))
    }
}

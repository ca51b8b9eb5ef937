import Foundation
import HTTPTypes
import Hummingbird
import Logging
import RPCServer
import ServiceCore
import SharedModels

/// `GET /devices/{deviceId}/events`: the direct channel's event stream for the device owner's bearer token.
///
/// Refusals are JSON-RPC error objects with an HTTP status, never the stream: no or a bad token → 401,
/// a token that is not a user's → 403, an unknown device or another user's → 404 (the same body),
/// a device of another platform → 400, a deactivated device → 410, auth's keys unavailable → 503.
struct DirectEventRoute: Sendable {
    /// The route's path pattern.
    static let path = "/devices/:deviceId/events"

    let verifier: AccessTokenVerifier
    let devices: any DeviceRepository
    let deliveries: any DeliveryRepository
    let hub: DirectHub
    /// Sessions auth reported revoked: a token of one opens no stream.
    let revocations: RevokedSessionsFeed?
    let keepaliveInterval: Duration
    let now: @Sendable () -> Date
    let metrics: DispatchMetrics
    /// `securepush_deliveries_total{platform="direct"}`, created once for every stream.
    let deliveryCounts: CounterFamily
    /// A span for each event written.
    var tracing: DeliveryTracing = .off

    func register(on router: RPCServerBuilder.ServiceRouter) {
        router.get(RouterPath(stringLiteral: Self.path)) { request, context in
            try await respond(to: request, deviceID: context.parameters.get("deviceId") ?? "", logger: context.logger)
        }
    }

    func respond(to request: Request, deviceID: String, logger: Logger) async throws -> Response {
        let principal: Principal
        do {
            principal = try await verifier.verify(
                RPCRequestContext.bearerToken(fromAuthorization: request.headers[.authorization]))
        } catch {
            if error.code == RPCErrorCode.unavailable { return Self.refusal(.serviceUnavailable, error) }
            var response = Self.refusal(.unauthorized, error)
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        }
        if let sessionID = principal.sessionID, revocations?.isRevoked(sessionID) == true {
            var response = Self.refusal(.unauthorized, .unauthenticated("session signed out"))
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        }
        guard principal.isUser else { return Self.refusal(.forbidden, .forbidden(scope: Scope.user)) }
        // Another user's device and a missing one get the same answer: the route is no existence oracle.
        guard let device = try await devices.device(id: deviceID), device.ownerID == principal.subject else {
            return Self.refusal(.notFound, DispatchError.deviceNotFound.rpcError)
        }
        guard device.platform == .direct else {
            return Self.refusal(.badRequest, .invalidParams(field: "deviceId", "is not a direct device"))
        }
        guard device.isActive else {
            return Self.refusal(.gone, .notFound("device (deactivated; register it again)"))
        }
        let stream = DirectEventStream(
            deviceID: device.id, ownerID: principal.subject, expiresAt: principal.expiresAt,
            sessionID: principal.sessionID,
            devices: devices,
            deliveries: deliveries, hub: hub,
            keepaliveInterval: keepaliveInterval, now: now, logger: logger,
            metrics: metrics, deliveryCounts: deliveryCounts, tracing: tracing
        )
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: ResponseBody { writer in try await stream.run(writer: &writer) }
        )
    }

    static func refusal(_ status: HTTPResponse.Status, _ error: RPCError) -> Response {
        let body = (try? RPCCodec.makeEncoder().encode(RPCResponse(id: .null, outcome: .error(error)))) ?? Data()
        return RPCServerBuilder.jsonResponse(status: status, body)
    }
}

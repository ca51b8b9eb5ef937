import SharedModels

/// What can go wrong in push-dispatch, mapped onto the stable JSON-RPC codes in one place.
public struct DispatchError: Error, Hashable, RPCErrorConvertible, CustomStringConvertible {
    private enum Code: Hashable {
        case invalidField(field: String, reason: String)
        case deviceNotFound
        case notificationNotFound
        case recipientNotFound(String)
        case sendInProgress
        case dependencyUnavailable(dependency: String, reason: String)
        case quotaExceeded(quota: Quota, limit: Int, appID: String?, retryAfterSeconds: Int?)
        case appNotAllowed(String)
        case conflict(String)
        case appNotFound
        case originNotAllowed(String)
    }

    /// A per-user or per-device quota, named in `-32029`'s `data.quota`.
    public enum Quota: String, Sendable, Hashable {
        /// `SECUREPUSH_MAX_DEVICES_PER_USER`, or the app's `limits.maxDevicesPerUser`.
        case devicesPerUser
        /// The app's `limits.sendsPerMinute`.
        case sendsPerMinute
    }

    private let code: Code

    private init(_ code: Code) { self.code = code }

    /// A parameter is malformed, out of bounds or not supported; the message names it.
    public static func invalidField(_ field: String, _ reason: String) -> DispatchError {
        DispatchError(.invalidField(field: field, reason: reason))
    }

    /// The device does not exist or is not the caller's: callers cannot tell which.
    public static let deviceNotFound = DispatchError(.deviceNotFound)

    /// The notification (or its delivery) does not exist or is not the caller's: callers cannot tell which.
    public static let notificationNotFound = DispatchError(.notificationNotFound)

    /// `push.send` to a recipient id auth does not know: nothing is stored.
    public static func recipientNotFound(_ recipientID: String) -> DispatchError {
        DispatchError(.recipientNotFound(recipientID))
    }

    /// Another `push.send` with the same idempotency key from the same client has not finished yet.
    public static let sendInProgress = DispatchError(.sendInProgress)

    /// A service push-dispatch depends on (the store, or auth for our own token) failed or could not be reached.
    public static func dependencyUnavailable(_ dependency: String, _ reason: String) -> DispatchError {
        DispatchError(.dependencyUnavailable(dependency: dependency, reason: reason))
    }

    /// A quota is full: `-32029` with `data: {quota, limit, appId?}`; the caller must free room (e.g. unregister a
    /// device).
    public static func quotaExceeded(
        _ quota: Quota, limit: Int, appID: String? = nil, retryAfterSeconds: Int? = nil
    ) -> DispatchError {
        DispatchError(.quotaExceeded(quota: quota, limit: limit, appID: appID, retryAfterSeconds: retryAfterSeconds))
    }

    /// The caller's token does not list this app (`apps` claim; none: the default app only): `-32003` with
    /// `data: {appId}`.
    public static func appNotAllowed(_ appID: String) -> DispatchError {
        DispatchError(.appNotAllowed(appID))
    }

    /// A browser page of an origin the app does not list registered one of its devices: `-32003` with `data: {appId}`.
    public static func originNotAllowed(appID: String) -> DispatchError {
        DispatchError(.originNotAllowed(appID))
    }

    /// No app with this id in the database: `-32004`.
    public static let appNotFound = DispatchError(.appNotFound)

    /// What the caller asked to create exists: `-32009`.
    public static func conflict(_ reason: String) -> DispatchError {
        DispatchError(.conflict(reason))
    }

    public var rpcError: RPCError {
        switch code {
        case .invalidField(let field, let reason): .invalidParams(field: field, reason)
        // One message for every reason, so existence is never revealed.
        case .deviceNotFound: .notFound("device")
        case .notificationNotFound: .notFound("notification")
        // The caller named this id itself (and may send to any user), so saying which one is unknown reveals nothing.
        case .recipientNotFound(let recipientID):
            RPCError(
                code: RPCErrorCode.notFound,
                message:
                    "Not found: recipient: auth knows no user with id '\(recipientID)' (recipientId takes a user id; "
                    + "auth.lookupUser resolves a username)",
                data: .object(["field": "recipientId"]))
        case .sendInProgress: .conflict("a send with this idempotency key is in progress")
        case .dependencyUnavailable(let dependency, let reason): .unavailable(dependency, reason)
        case .quotaExceeded(let quota, let limit, let appID, let retryAfterSeconds):
            RPCError(
                code: RPCErrorCode.rateLimited,
                message: "Quota exceeded: \(quota.rawValue) is limited to \(limit)"
                    + (appID.map { " for app '\($0)'" } ?? "")
                    + (retryAfterSeconds.map { "; retry after \($0) s" } ?? ""),
                data: .object(
                    ["quota": .string(quota.rawValue), "limit": .int(Int64(limit))]
                        .merging(appID.map { ["appId": .string($0)] } ?? [:]) { first, _ in first }
                        .merging(retryAfterSeconds.map { ["retryAfterSeconds": .int(Int64($0))] } ?? [:]) {
                            first, _ in first
                        }))
        case .appNotAllowed(let appID):
            RPCError(
                code: RPCErrorCode.forbidden,
                message:
                    "Forbidden: this client may not send for app '\(appID)' (its apps are set with "
                    + "`securepush clients create --app`)",
                data: .object(["appId": .string(appID)]))
        case .conflict(let reason): .conflict(reason)
        case .appNotFound: .notFound("app")
        case .originNotAllowed(let appID):
            RPCError(
                code: RPCErrorCode.forbidden,
                message:
                    "Forbidden: this page's origin may not register devices of app '\(appID)' (its allowedOrigins)",
                data: .object(["appId": .string(appID)]))
        }
    }

    public var description: String {
        switch code {
        case .invalidField(let field, let reason): "invalid \(field): \(reason)"
        case .deviceNotFound: "device not found"
        case .notificationNotFound: "notification not found"
        case .recipientNotFound(let recipientID): "recipient '\(recipientID)' not found"
        case .sendInProgress: "send with this idempotency key in progress"
        case .dependencyUnavailable(let dependency, let reason): "\(dependency) unavailable: \(reason)"
        case .quotaExceeded(let quota, let limit, _, _): "quota \(quota.rawValue) of \(limit) exceeded"
        case .appNotAllowed(let appID): "app '\(appID)' not allowed for this client"
        case .conflict(let reason): reason
        case .appNotFound: "app not found"
        case .originNotAllowed(let appID): "origin not allowed for app '\(appID)'"
        }
    }
}

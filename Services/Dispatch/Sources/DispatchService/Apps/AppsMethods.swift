import Foundation
import ServiceCore
import SharedModels

/// The `apps.*` methods (scope `apps:admin`): ``AppAdministration`` on the running service's database, each change
/// served by this replica at once (its catalog is refreshed before the answer) and by the others within
/// `SECUREPUSH_APPS_REFRESH_INTERVAL`.
struct AppsMethods: Sendable {
    let administration: AppAdministration
    let loader: AppCatalogLoader
    let catalog: AppCatalog
    /// Where app changes are recorded.
    var audit: AuditTrail?

    /// Records `type` about `appID` by `admin` (never the credentials).
    private func record(_ type: String, admin: String, appID: String) {
        audit?.record(type, ["client": .text(admin), "app": .text(appID)])
    }

    func register(on methods: inout MethodRegistry) {
        let admin = MethodAccess.scope(Scope.appsAdmin)
        methods.register(Apps.Create.self, requires: admin) { params, client, _ in
            let created = try await administration.create(
                id: params.appId, displayName: params.displayName, credentials: params.credentials,
                limits: params.limits ?? Apps.Limits(), allowedOrigins: params.allowedOrigins ?? [])
            record("apps.created", admin: client.subject, appID: params.appId)
            return try await served(created)
        }
        methods.register(Apps.List.self, requires: admin) { _, _, _ in
            var apps = [environmentApp()]
            for record in try await administration.list() {
                do {
                    apps.append(try await info(record))
                } catch let error as ConfigurationError {
                    // One app this replica cannot open leaves the others listed.
                    var app = info(record, fingerprints: [:])
                    app.unusable = error.description
                    apps.append(app)
                }
            }
            return Apps.List.Result(apps: apps)
        }
        methods.register(Apps.Get.self, requires: admin) { params, _, _ in
            if params.appId == AppCatalog.environmentAppID { return environmentApp() }
            return try await info(try await administration.existing(params.appId))
        }
        methods.register(Apps.Update.self, requires: admin) { params, client, _ in
            let updated = try await administration.update(
                id: params.appId, displayName: params.displayName, limits: params.limits ?? Apps.Limits(),
                allowedOrigins: params.allowedOrigins)
            record("apps.updated", admin: client.subject, appID: params.appId)
            return try await served(updated)
        }
        methods.register(Apps.RotateCredentials.self, requires: admin) { params, client, _ in
            guard !params.credentials.platforms.isEmpty else {
                throw DispatchError.invalidField(
                    "credentials", "configure at least one platform (apns, fcm, wns, webPush)")
            }
            let updated = try await administration.update(id: params.appId, credentials: params.credentials)
            record("apps.credentials_rotated", admin: client.subject, appID: params.appId)
            return try await served(updated)
        }
        methods.register(Apps.Delete.self, requires: admin) { params, client, _ in
            try await administration.delete(id: params.appId, confirm: params.confirm)
            record("apps.deleted", admin: client.subject, appID: params.appId)
            try await loader.refresh()
            return Empty()
        }
    }

    /// `record` as `apps.*` answer it, once this replica serves it.
    private func served(_ record: AppRecord) async throws -> Apps.AppInfo {
        try await loader.refresh()
        return try await info(record)
    }

    private func info(_ record: AppRecord) async throws -> Apps.AppInfo {
        info(record, fingerprints: try await administration.show(id: record.id).fingerprints)
    }

    private func info(_ record: AppRecord, fingerprints: [String: String]) -> Apps.AppInfo {
        Apps.AppInfo(
            appId: record.id, displayName: record.displayName, source: "database", fingerprints: fingerprints,
            limits: record.limits, allowedOrigins: record.allowedOrigins.isEmpty ? nil : record.allowedOrigins,
            revision: record.revision, createdAt: record.createdAt,
            updatedAt: record.updatedAt)
    }

    private func environmentApp() -> Apps.AppInfo {
        let served = catalog.apps.first { $0.source == .environment }
        return Apps.AppInfo(
            appId: AppCatalog.environmentAppID, displayName: served?.displayName ?? "Default app (environment)",
            source: "environment",
            fingerprints: Dictionary(
                uniqueKeysWithValues: (served?.providers.keys.map { ($0.rawValue, "SECUREPUSH_* variables") } ?? [])))
    }
}

import ArgumentParser
import DispatchService
import Foundation
import ServiceCore
import SharedModels

/// `securepush apps`: manage the apps one deployment serves (issue 27), on push-dispatch's database directly.
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Manage apps (each with its own push credentials) in push-dispatch's database.",
        discussion:
            "Works on the dispatch database directly (SECUREPUSH_DATABASE_URL for PostgreSQL, else SECUREPUSH_DATA_DIR or --data-dir), while push-dispatch runs or not; running replicas serve a change within SECUREPUSH_APPS_REFRESH_INTERVAL. Credentials are read from files, never from the command line, and kept encrypted under SECUREPUSH_APPS_KEY_FILE.",
        subcommands: [
            Create.self, List.self, Show.self, Update.self, RotateCredentials.self, Delete.self, RotateKey.self,
        ]
    )

    /// Where the dispatch database is.
    struct DatabaseOptions: ParsableArguments {
        @Option(help: "data directory holding dispatch.sqlite (env SECUREPUSH_DATA_DIR; default ./.securepush)")
        var dataDir: String?

        /// Runs `body` on the apps of the database, explaining push-dispatch's errors as the CLI explains RPC errors.
        func run<T: Sendable>(
            flags: [String: String] = [:], conflictHint: String? = nil, overrides: [String: String] = [:],
            _ body: (AppAdministration) async throws -> T
        ) async throws -> T {
            var environment = ServiceEnvironment()
            if let dataDir { environment.values["SECUREPUSH_DATA_DIR"] = dataDir }
            environment.values.merge(overrides) { _, new in new }
            var context = FailureContext(.local, role: .account, conflictHint: conflictHint)
            context.flags = flags
            return try await explainingFailures(context) {
                do {
                    return try await AppAdministration.with(
                        environment: environment, logger: cliLogger(),
                        keyFileCreated: { print("created the apps key file \($0) (0600): back it up") }, body)
                } catch let error as any RPCErrorConvertible {
                    throw error.rpcError
                }
            }
        }
    }

    /// The credential options of `create`, `update` and `rotate-credentials`: files, never secrets inline.
    struct CredentialOptions: ParsableArguments {
        @Option(help: "the APNs .p8 key file (PEM)") var apnsKeyFile: String?
        @Option(help: "the APNs key id") var apnsKeyId: String?
        @Option(help: "the Apple team id") var apnsTeamId: String?
        @Option(help: "the app's bundle id (apns-topic)") var apnsTopic: String?
        @Option(help: "production or sandbox (default: SECUREPUSH_APNS_ENVIRONMENT)") var apnsEnvironment: String?
        @Option(help: "the FCM service-account JSON key file") var fcmCredentialsFile: String?
        @Option(help: "the WNS package SID (ms-app://…)") var wnsPackageSid: String?
        @Option(help: "a file holding the WNS client secret") var wnsSecretFile: String?
        @Option(help: "the VAPID P-256 private key file (PEM)") var vapidPrivateKeyFile: String?
        @Option(help: "the VAPID subject: a mailto: or https: contact") var vapidSubject: String?
        @Option(
            help:
                "the push services' hosts subscriptions may name, comma-separated (default: SECUREPUSH_WEBPUSH_ALLOWED_HOSTS)"
        )
        var webpushAllowedHosts: String?

        /// The credentials given; throws a usage error for a half-given APNs set or an unreadable file.
        func credentials() throws -> AppCredentials {
            var credentials = AppCredentials()
            let apnsParts = [apnsKeyFile, apnsKeyId, apnsTeamId, apnsTopic]
            if apnsParts.contains(where: { $0 != nil }) {
                guard let keyFile = apnsKeyFile, let keyID = apnsKeyId, let teamID = apnsTeamId, let topic = apnsTopic
                else {
                    throw ValidationError(
                        "APNs needs --apns-key-file, --apns-key-id, --apns-team-id and --apns-topic together")
                }
                credentials.apns = AppCredentials.APNs(
                    teamId: teamID, keyId: keyID, privateKey: try Self.read(keyFile, option: "--apns-key-file"),
                    topic: topic, environment: apnsEnvironment)
            } else if apnsEnvironment != nil {
                throw ValidationError("--apns-environment needs the other --apns-* options")
            }
            if let file = fcmCredentialsFile {
                credentials.fcm = AppCredentials.FCM(
                    serviceAccount: try Self.read(file, option: "--fcm-credentials-file"))
            }
            switch (wnsPackageSid, wnsSecretFile) {
            case (nil, nil): break
            case (let sid?, let file?):
                credentials.wns = AppCredentials.WNS(
                    packageSid: sid,
                    secret: try Self.read(file, option: "--wns-secret-file").trimmingCharacters(
                        in: .whitespacesAndNewlines))
            default: throw ValidationError("WNS needs --wns-package-sid and --wns-secret-file together")
            }
            switch (vapidPrivateKeyFile, vapidSubject) {
            case (nil, nil):
                if webpushAllowedHosts != nil {
                    throw ValidationError("--webpush-allowed-hosts needs the --vapid-* options")
                }
            case (let file?, let subject?):
                credentials.webPush = AppCredentials.WebPush(
                    vapidPrivateKey: try Self.read(file, option: "--vapid-private-key-file"), subject: subject,
                    allowedHosts: webpushAllowedHosts.map { $0.split(separator: ",").map(String.init) })
            default: throw ValidationError("Web Push needs --vapid-private-key-file and --vapid-subject together")
            }
            return credentials
        }

        static func read(_ path: String, option: String) throws -> String {
            guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20,
                let text = String(data: data, encoding: .utf8)
            else { throw ValidationError("\(option): cannot read '\(path)' (a text file of at most 1 MiB)") }
            return text
        }
    }

    /// An app's own limits (each unset: the deployment's) and browser origins.
    struct LimitOptions: ParsableArguments {
        @Option(
            name: .customLong("allowed-origin"),
            help: "an origin of the app's web pages, e.g. https://app.bank.example (repeatable)")
        var allowedOrigins: [String] = []
        @Option(help: "devices per user for this app (default: SECUREPUSH_MAX_DEVICES_PER_USER)")
        var maxDevicesPerUser: Int?
        @Option(help: "push.send calls per minute for this app, all replicas together (default: no limit)")
        var sendsPerMinute: Int?
        @Option(help: "largest payload in bytes, at most SECUREPUSH_MAX_PAYLOAD_BYTES") var maxPayloadBytes: Int?
        @Option(help: "longest ttlSeconds, at most SECUREPUSH_MAX_TTL_SECONDS") var maxTtlSeconds: Int?

        var limits: Apps.Limits {
            Apps.Limits(
                maxDevicesPerUser: maxDevicesPerUser, sendsPerMinute: sendsPerMinute, maxPayloadBytes: maxPayloadBytes,
                maxTTLSeconds: maxTtlSeconds)
        }
    }

    static let flags = [
        "appId": "--id", "displayName": "--name", "limits.maxDevicesPerUser": "--max-devices-per-user",
        "limits.sendsPerMinute": "--sends-per-minute", "limits.maxPayloadBytes": "--max-payload-bytes",
        "limits.maxTTLSeconds": "--max-ttl-seconds", "allowedOrigins": "--allowed-origin",
        "credentials": "the credential options", "confirm": "--yes",
    ]

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an app with its push credentials.")
        @Option(help: "the app id: 2 to 64 characters of a-z, 0-9 and '-', e.g. retail-ios") var id: String
        @Option(help: "a name for people") var name: String
        @OptionGroup var limits: LimitOptions
        @OptionGroup var credentials: CredentialOptions
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let given = try credentials.credentials()
            let app = try await database.run(flags: AppsCommand.flags, conflictHint: "choose another --id") {
                try await $0.create(
                    id: id, displayName: name, credentials: given, limits: limits.limits,
                    allowedOrigins: limits.allowedOrigins)
            }
            await CLIAudit.record("apps.created", ["app": .text(app.id)], in: .dispatch, dataDir: database.dataDir)
            print("created app '\(app.id)' (\(given.platforms.map(\.rawValue).joined(separator: ", ")))")
            print("clients send for it once created with `securepush clients create … --app \(app.id)`")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the apps.")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let apps = try await database.run { try await $0.list() }
            print("default\t(the SECUREPUSH_* provider variables; read-only)")
            for app in apps { print("\(app.id)\t\(app.displayName)\trevision \(app.revision)") }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show an app: its platforms and credential fingerprints (never secrets).")
        @Option(help: "the app id") var id: String
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let (app, fingerprints) = try await database.run(flags: AppsCommand.flags) { try await $0.show(id: id) }
            print("app \(app.id): \(app.displayName)")
            print("revision \(app.revision), updated \(app.updatedAt.formatted(.iso8601))")
            if let limit = app.limits.maxDevicesPerUser { print("devices per user: \(limit)") }
            if let limit = app.limits.sendsPerMinute { print("sends per minute: \(limit)") }
            if let limit = app.limits.maxPayloadBytes { print("payload bytes: \(limit)") }
            if let limit = app.limits.maxTTLSeconds { print("TTL seconds: \(limit)") }
            if !app.allowedOrigins.isEmpty { print("origins: \(app.allowedOrigins.joined(separator: " "))") }
            for platform in fingerprints.keys.sorted() { print("\(platform): \(fingerprints[platform]!)") }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change an app's name, device limit or credentials (the platforms given are replaced).")
        @Option(help: "the app id") var id: String
        @Option(help: "a new name") var name: String?
        @OptionGroup var limits: LimitOptions
        @OptionGroup var credentials: CredentialOptions
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let given = try credentials.credentials()
            guard
                name != nil || limits.limits != Apps.Limits() || !limits.allowedOrigins.isEmpty
                    || !given.platforms.isEmpty
            else {
                throw ValidationError("nothing to change: give --name, a limit or credential options")
            }
            let app = try await database.run(flags: AppsCommand.flags) {
                try await $0.update(
                    id: id, displayName: name, credentials: given, limits: limits.limits,
                    allowedOrigins: limits.allowedOrigins.isEmpty ? nil : limits.allowedOrigins)
            }
            await CLIAudit.record("apps.updated", ["app": .text(app.id)], in: .dispatch, dataDir: database.dataDir)
            print("updated app '\(app.id)' (revision \(app.revision))")
        }
    }

    struct RotateCredentials: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-credentials",
            abstract: "Replace an app's credentials for the platforms given; running replicas switch within "
                + "SECUREPUSH_APPS_REFRESH_INTERVAL.")
        @Option(help: "the app id") var id: String
        @OptionGroup var credentials: CredentialOptions
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let given = try credentials.credentials()
            guard !given.platforms.isEmpty else { throw ValidationError("give the new credentials' options") }
            let app = try await database.run(flags: AppsCommand.flags) {
                try await $0.update(id: id, credentials: given)
            }
            await CLIAudit.record(
                "apps.credentials_rotated",
                ["app": .text(app.id), "platforms": .texts(given.platforms.map(\.rawValue))], in: .dispatch,
                dataDir: database.dataDir)
            print(
                "rotated \(given.platforms.map(\.rawValue).joined(separator: ", ")) credentials of app '\(app.id)' "
                    + "(revision \(app.revision))")
        }
    }

    struct RotateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-key",
            abstract: "Add a new key to SECUREPUSH_APPS_KEY_FILE and seal every app's credentials under it again.",
            discussion:
                "With several replicas: run with --add-only, give every replica the new file (they read it when an app changes), then run with --reseal-only; remove the older keys once it reports none left."
        )
        @Option(help: "the apps key file (env SECUREPUSH_APPS_KEY_FILE; default: apps-keys in the data directory)")
        var keyFile: String?
        @Flag(help: "only add the key; reseal nothing") var addOnly = false
        @Flag(help: "add no key; seal what is under older keys under the file's last key") var resealOnly = false
        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            if addOnly && resealOnly { throw ValidationError("--add-only and --reseal-only exclude each other") }
        }

        func run() async throws {
            var overrides: [String: String] = [:]
            if let keyFile { overrides["SECUREPUSH_APPS_KEY_FILE"] = keyFile }
            let rotation = try await database.run(overrides: overrides) {
                try await $0.rotateKey(addKey: !resealOnly, reseal: !addOnly)
            }
            await CLIAudit.record(
                "apps.keys.rotated",
                [
                    "keyId": .text(rotation.currentKeyID), "keyAdded": .flag(rotation.addedKeyID != nil),
                    "resealed": .integer(Int64(rotation.resealed.count)),
                ], in: .dispatch, dataDir: database.dataDir)
            if let added = rotation.addedKeyID {
                print("added key '\(added)': it seals apps' credentials from now on, older keys still open")
            }
            if !addOnly { print("resealed \(rotation.resealed.count) apps under key '\(rotation.currentKeyID)'") }
            if rotation.underOlderKeys.isEmpty {
                print("no app is under an older key: older keys may be removed from the file")
            } else {
                print(
                    "\(rotation.underOlderKeys.count) apps still under older keys "
                        + "(\(rotation.underOlderKeys.joined(separator: ", "))): run with --reseal-only again")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete an app: its devices are removed and their undelivered notifications fail.")
        @Option(help: "the app id") var id: String
        @Flag(help: "do not ask for confirmation") var yes = false
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            var confirm = id
            if !yes {
                print("This removes app '\(id)' and all its devices. Type its id to confirm: ", terminator: "")
                confirm = readLine(strippingNewline: true) ?? ""
            }
            try await database.run(flags: AppsCommand.flags) { try await $0.delete(id: id, confirm: confirm) }
            await CLIAudit.record("apps.deleted", ["app": .text(id)], in: .dispatch, dataDir: database.dataDir)
            print("deleted app '\(id)'")
        }
    }
}

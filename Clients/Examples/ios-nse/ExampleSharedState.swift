import Foundation
import SecurePushDeviceCore

/// What the app leaves for its Notification Service Extension: the session and the sealed device's id, as JSON in a
/// directory both can read — on iOS the app group's container
/// (`FileManager.default.containerURL(forSecurityApplicationGroupIdentifier:)`), here any directory. The device key
/// is not here: a ``DeviceKeyStore`` keeps it (the shared keychain on iOS).
public struct ExampleSharedState: Codable, Sendable, Equatable {
    public var session: DeviceSession?
    public var deviceId: String?

    public init(session: DeviceSession? = nil, deviceId: String? = nil) {
        self.session = session
        self.deviceId = deviceId
    }
}

/// The file ``ExampleSharedState`` is kept in, replaced atomically (on iOS also with file protection until the
/// first unlock, so the extension can read it while the phone is locked).
public struct ExampleSharedStateFile: Sendable {
    public let url: URL

    public init(directory: URL) {
        url = directory.appendingPathComponent("securepush-state.json")
    }

    /// The state; empty when there is none yet.
    public func load() throws -> ExampleSharedState {
        guard let data = FileManager.default.contents(atPath: url.path) else { return ExampleSharedState() }
        return try JSONDecoder().decode(ExampleSharedState.self, from: data)
    }

    public func save(_ state: ExampleSharedState) throws {
        #if os(iOS)
            let options: Data.WritingOptions = [.atomic, .completeFileProtectionUntilFirstUserAuthentication]
        #else
            let options: Data.WritingOptions = [.atomic]
        #endif
        try JSONEncoder().encode(state).write(to: url, options: options)
    }
}

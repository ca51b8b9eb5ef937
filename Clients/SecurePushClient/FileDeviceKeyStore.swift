import Foundation
import PrivateFiles
import SecurePushDeviceCore
import SharedModels

/// A ``DeviceKeyStore`` in one file: the key's raw scalar in base64url, written 0600 (its directory 0700) from its
/// creation and never replaced: when another process wrote one first, that key is used.
public struct FileDeviceKeyStore: DeviceKeyStore {
    /// The file.
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// - Throws: ``SecurePushClientError`` when the file holds no usable key, `PrivateFileError` when it cannot be
    ///   written.
    public func loadOrCreate() throws -> DeviceKey {
        if let existing = try load() { return existing }
        let key = DeviceKey()
        let text = key.rawRepresentation.base64URLEncodedString() + "\n"
        if try PrivateFile.write(Data(text.utf8), to: path, existing: .keep) { return key }
        guard let existing = try load() else { throw SecurePushClientError.unreadableDeviceKey(path: path) }
        return existing
    }

    /// The key kept in the file; `nil` when there is no file.
    public func load() throws -> DeviceKey? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        guard let text = String(data: data, encoding: .utf8),
            let raw = Data(strictBase64URL: text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw SecurePushClientError.unreadableDeviceKey(path: path) }
        return try DeviceKey(rawRepresentation: raw)
    }
}

extension DeviceKey {
    /// The key kept in `path`, or a new one written there (``FileDeviceKeyStore``).
    public static func loadOrCreate(path: String) throws -> DeviceKey {
        try FileDeviceKeyStore(path: path).loadOrCreate()
    }
}

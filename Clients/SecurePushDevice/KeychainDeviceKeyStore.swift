#if canImport(Security)
    // Apple platforms only: NOT compiled or run on the Linux machines this project is built and tested on.
    import Foundation
    import Security

    /// A ``DeviceKeyStore`` in the keychain, shared by an app and its Notification Service Extension through an access
    /// group (`kSecAttrAccessGroup`, the app group's keychain group), readable after the first unlock, on this device
    /// only (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`: never in a backup, never on another device).
    ///
    /// A software P-256 key: the Secure Enclave cannot hold it, because CryptoKit's HPKE recipient does not take
    /// Secure Enclave keys and this one key both opens sealed copies and signs device proofs (see docs/ios.md). On
    /// macOS the data-protection keychain needs the `keychain-access-groups` entitlement (else `-34018`).
    public struct KeychainDeviceKeyStore: DeviceKeyStore {
        /// The item's service and account.
        public let service: String
        public let account: String
        /// The keychain access group the app and its extension share; `nil`: the app's default group only.
        public let accessGroup: String?

        public init(service: String = "securepush.device-key", account: String = "default", accessGroup: String?) {
            self.service = service
            self.account = account
            self.accessGroup = accessGroup
        }

        /// The keychain's failure, with its `OSStatus`.
        public struct KeychainError: Error, CustomStringConvertible {
            public var status: OSStatus
            public var description: String { "keychain error \(status)" }
        }

        public func loadOrCreate() throws -> DeviceKey {
            if let existing = try load() { return existing }
            let key = DeviceKey()
            var attributes = query
            attributes[kSecValueData as String] = key.rawRepresentation
            attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            let status = SecItemAdd(attributes as CFDictionary, nil)
            if status == errSecSuccess { return key }
            // The app and the extension raced: the one added first is the key.
            if status == errSecDuplicateItem, let existing = try load() { return existing }
            throw KeychainError(status: status)
        }

        private var query: [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: account, kSecUseDataProtectionKeychain as String: true,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        public func load() throws -> DeviceKey? {
            var request = query
            request[kSecReturnData as String] = true
            request[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = SecItemCopyMatching(request as CFDictionary, &item)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = item as? Data else { throw KeychainError(status: status) }
            return try DeviceKey(rawRepresentation: data)
        }
    }
#endif

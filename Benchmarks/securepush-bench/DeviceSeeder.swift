import AuthService
import DispatchService
import Foundation
import ServiceCore
import SharedModels

/// Registers one APNs device for each of many users straight into push-dispatch's SQLite database, through
/// push-dispatch's own repository (same schema, same rules), before push-dispatch starts; and the users themselves
/// into auth's SQLite database, through auth's repository, since `push.send` refuses recipients auth does not know.
/// (Over RPC, 10,000 accounts would cost minutes of bcrypt; every seeded account shares one password hash.)
enum DeviceSeeder {
    /// A seeded user and the APNs token of their one device.
    struct SeededUser: Sendable {
        var userID: String
        var deviceToken: String
    }

    static func seed(users: Int, dataDirectory: String, authDataDirectory: String) async throws -> [SeededUser] {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent("dispatch.sqlite").path
        let repository = SQLDeviceRepository(
            database: try ServiceDatabase.sqlite(path: path, migrations: DispatchMigrations.all).sql)
        let accounts = SQLAuthRepository(
            database: try ServiceDatabase.sqlite(
                path: AuthConfiguration.databasePath(inDataDirectory: authDataDirectory), migrations: AuthMigrations.all
            ).sql)
        let passwordHash = try await PasswordHasher(cost: 10).hash("bench-user-password")
        var seeded: [SeededUser] = []
        seeded.reserveCapacity(users)
        let now = Date()
        for index in 0..<users {
            let user = SeededUser(userID: "bench-user-\(index)", deviceToken: apnsToken(seed: UInt64(index) + 1))
            if try await accounts.user(id: user.userID) == nil {
                try await accounts.insertUser(
                    UserRecord(id: user.userID, username: user.userID, passwordHash: passwordHash, createdAt: now))
            }
            _ = try await repository.register(
                ownerID: user.userID, platform: .apns, token: user.deviceToken, name: nil, now: now)
            seeded.append(user)
        }
        return seeded
    }

    /// A well-formed APNs device token (32 bytes as 64 hex digits), distinct per seed.
    static func apnsToken(seed: UInt64) -> String {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        var text = ""
        for _ in 0..<4 {
            // splitmix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            let hex = String(z, radix: 16)
            text += String(repeating: "0", count: 16 - hex.count) + hex
        }
        return text
    }
}

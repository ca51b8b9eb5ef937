import APNsMock
import DispatchService
import Foundation
import SharedModels
import Testing

@Suite("APNs device tokens at registration")
struct APNsDeviceTokenTests {
    static func makeProvider() throws -> APNsProvider {
        let key = APNsTestKey()
        return try APNsProvider(
            configuration: APNsConfiguration(
                signingKey: key.privateKey,
                keyID: key.keyID,
                teamID: key.teamID,
                topic: "com.example.app",
                pingInterval: nil
            ),
            logger: .quiet
        )
    }

    @Test("a hex token is accepted and stored in lower case")
    func accepted() async throws {
        let provider = try Self.makeProvider()
        let upper = String(repeating: "AB12", count: 16)
        #expect(try provider.validateToken(upper) == upper.lowercased())
        let long = String(repeating: "0f", count: 100)
        #expect(try provider.validateToken(long) == long)
        #expect(provider.platform == .apns)
        await provider.shutdown()
    }

    @Test(
        "malformed tokens are refused with -32602 naming token",
        arguments: [
            nil, "", String(repeating: "a", count: 62), String(repeating: "a", count: 65),
            String(repeating: "a", count: 202), String(repeating: "g", count: 64),
            String(repeating: "a", count: 63) + " ", String(repeating: "a", count: 62) + "/x",
        ]
    )
    func refused(token: String?) async throws {
        let provider = try Self.makeProvider()
        let error = #expect(throws: DispatchError.self) { _ = try provider.validateToken(token) }
        #expect(error?.rpcError.code == RPCErrorCode.invalidParams)
        #expect(error?.rpcError.data == .object(["field": .string("token")]))
        await provider.shutdown()
    }
}

import DispatchService
import Foundation
import Logging
import ServiceCore
import SharedModels
import TestSupport
import Testing

@Suite("-32050 names the dependency, never its address or a library's error")
struct DependencyErrorTests {
    @Test("push.send while the store's port refuses connections: -32050 naming notification-store, no host or port")
    func storeDownTextHasNoAddress() async throws {
        let port = try await closedPort()
        let peer = try PeerClient(
            url: "http://127.0.0.1:\(port)", peerName: "notification-store", caFile: nil, logger: .quiet)
        let harness = try await DispatchHarness(storeClient: peer.rpc)
        _ = try await harness.registerDevice(user: "alice")

        let error = await expectRPCError { _ = try await harness.send(to: "alice") }
        await peer.shutdown()
        let refused = try #require(error)
        #expect(refused.code == RPCErrorCode.unavailable)
        #expect(refused.data == .object(["dependency": "notification-store"]))
        #expect(refused.message.hasPrefix("Dependency unavailable: notification-store"))
        for leak in ["127.0.0.1", "\(port)", "http", "NIO", "connect", "refused", "errno", "Error"] {
            #expect(!refused.message.contains(leak), "leaks '\(leak)': \(refused.message)")
        }
    }
}

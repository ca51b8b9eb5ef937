import Foundation
import ServiceCore
import SharedModels
import StoreService
import Testing

@Suite("store.list")
struct StoreListTests {
    @Test("listing is newest first, without payloads, and only the caller's notifications")
    func newestFirst() async throws {
        let harness = try await StoreHarness()
        var ids: [String] = []
        for _ in 0..<3 {
            ids.append(try await harness.put(to: "alice").notificationId)
            try await harness.put(to: "bob")
            harness.clock.advance(by: 1)
        }
        let page = try await harness.list(as: "alice")
        #expect(page.items.map(\.notificationId) == ids.reversed())
        #expect(page.nextCursor == nil)
        #expect(page.items.allSatisfy { $0.readAt == nil })
    }

    @Test("pagination is stable across pages when many notifications share a timestamp")
    func paginationWithEqualTimestamps() async throws {
        let harness = try await StoreHarness()
        // The clock does not move: all seven share one createdAt, so only the id orders them.
        var ids: Set<String> = []
        for _ in 0..<7 {
            ids.insert(try await harness.put(to: "alice").notificationId)
        }
        let pages = try await harness.allPages(as: "alice", limit: 3)
        #expect(pages.map(\.items.count) == [3, 3, 1])
        let listed = pages.flatMap(\.items).map(\.notificationId)
        #expect(Set(listed) == ids)
        #expect(listed.count == ids.count)
        #expect(listed == listed.sorted(by: >))
        #expect(pages.last?.nextCursor == nil)
    }

    @Test("pagination mixes equal and distinct timestamps without skipping or repeating")
    func paginationWithMixedTimestamps() async throws {
        let harness = try await StoreHarness()
        var expected: [String] = []
        for group in 0..<4 {
            var sameInstant: [String] = []
            for _ in 0..<(group + 1) {
                sameInstant.append(try await harness.put(to: "alice").notificationId)
            }
            expected = sameInstant.sorted(by: >) + expected
            harness.clock.advance(by: 0.001)
        }
        let listed = try await harness.allPages(as: "alice", limit: 2).flatMap(\.items).map(\.notificationId)
        #expect(listed == expected)
    }

    @Test("unreadOnly leaves out what was marked read")
    func unreadOnly() async throws {
        let harness = try await StoreHarness()
        let first = try await harness.put(to: "alice")
        harness.clock.advance(by: 1)
        let second = try await harness.put(to: "alice")
        harness.clock.advance(by: 1)
        let third = try await harness.put(to: "alice")
        _ = try await harness.client.call(
            Store.MarkRead.self, .init(notificationId: second.notificationId),
            token: try await harness.signer.userToken("alice"))

        let unread = try await harness.list(as: "alice", unreadOnly: true)
        #expect(unread.items.map(\.notificationId) == [third.notificationId, first.notificationId])
        let all = try await harness.list(as: "alice", unreadOnly: false)
        #expect(all.items.map(\.notificationId) == [third.notificationId, second.notificationId, first.notificationId])
        #expect(all.items[1].readAt != nil)
        let unreadPages = try await harness.allPages(as: "alice", unreadOnly: true, limit: 1)
        #expect(unreadPages.flatMap(\.items).map(\.notificationId) == [third.notificationId, first.notificationId])
    }

    @Test("limit defaults to 50 and must be 1…200", arguments: [0, -5, 201])
    func limitBounds(_ limit: Int) async throws {
        let harness = try await StoreHarness()
        let error = await rpcError { try await harness.list(as: "alice", limit: limit) }
        #expect(error?.code == RPCErrorCode.invalidParams)
        #expect(error?.field == "limit")
    }

    @Test("limits 1 and 200 are accepted, and the default page holds 50")
    func limitEdges() async throws {
        let harness = try await StoreHarness()
        for _ in 0..<51 {
            try await harness.put(to: "alice")
        }
        let defaultPage = try await harness.list(as: "alice")
        #expect(defaultPage.items.count == 50)
        #expect(defaultPage.nextCursor != nil)
        #expect(try await harness.list(as: "alice", limit: 1).items.count == 1)
        let big = try await harness.list(as: "alice", limit: 200)
        #expect(big.items.count == 51)
        #expect(big.nextCursor == nil)
    }

    @Test("a cursor that store.list did not make is -32602 naming cursor")
    func garbageCursor() async throws {
        let harness = try await StoreHarness()
        try await harness.put(to: "alice")
        let forged = [
            "", "garbage", "!!!", Data("v1:abc:x".utf8).base64URLEncodedString(),
            Data("v2:1:\(NotificationID.make())".utf8).base64URLEncodedString(),
            Data("v1:-1:\(NotificationID.make())".utf8).base64URLEncodedString(),
            String(repeating: "A", count: 5000),
        ]
        for cursor in forged {
            let error = await rpcError { try await harness.list(as: "alice", cursor: cursor) }
            #expect(error?.code == RPCErrorCode.invalidParams)
            #expect(error?.field == "cursor")
        }
    }

    @Test("listing needs a user token")
    func listingNeedsUserToken() async throws {
        let harness = try await StoreHarness()
        let error = await rpcError {
            try await harness.client.call(Store.List.self, .init(), token: try await harness.signer.writerToken())
        }
        #expect(error?.code == RPCErrorCode.forbidden)
    }
}

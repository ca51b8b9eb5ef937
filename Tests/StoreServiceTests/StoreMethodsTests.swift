import SharedModels
import StoreService
import Testing

@Suite("dispatcher")
struct StoreMethodsTests {
    @Test("the dispatcher serves exactly the methods in MethodCatalog.store")
    func methodsMatchCatalog() async throws {
        let harness = try await StoreHarness()
        #expect(harness.components.dispatcher.methodNames == MethodCatalog.store)
    }

    @Test("missing params are -32602 naming the field, before any token is looked at")
    func missingParams() async throws {
        let harness = try await StoreHarness()
        let body = try await harness.rawResponse(method: Store.Put.name, params: .object(["payload": "x"]), token: nil)
        let error = try RPCCodec.makeDecoder().decode(RPCResponseEnvelope<Store.Put.Result>.self, from: body).error
        #expect(error?.code == RPCErrorCode.invalidParams)
        #expect(error?.field == "recipientId")
    }
}

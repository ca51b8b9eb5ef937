import Foundation
import JSONRPC
import Testing

/// Params with nested objects and arrays, to see where a decoding failure is reported.
struct OrderParams: Codable, Sendable {
    struct Address: Codable, Sendable {
        var street: String
        var number: Int
    }

    struct Item: Codable, Sendable {
        var sku: String
        var quantity: Int
    }

    var customer: String
    var address: Address
    var items: [Item]
    var placedAt: Date?
}

enum Schedule: RPCMethod {
    static let name = "schedule"

    struct Params: Codable, Sendable {
        struct Slot: Codable, Sendable { var at: Date }
        var slots: [Slot]
    }

    typealias Result = Int
}

enum PlaceOrder: RPCMethod {
    static let name = "order.place"
    typealias Params = OrderParams
    typealias Result = Int
}

@Suite("invalid params get -32602 naming the offending field")
struct InvalidParamsTests {
    var dispatcher: RPCDispatcher {
        var dispatcher = SpecDispatcher.make()
        dispatcher.register(PlaceOrder.self) { params, _ in params.items.count }
        return dispatcher
    }

    let valid =
        #"{"customer": "ada", "address": {"street": "Main", "number": 1}, "items": [{"sku": "a", "quantity": 1}, {"sku": "b", "quantity": 2}]}"#

    func error(forParams params: String, method: String = PlaceOrder.name) async throws -> (
        code: Int64, message: String, data: JSONValue?
    ) {
        let response = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "\#(method)", "params": \#(params), "id": 1}"#, from: dispatcher)
        #expect(response?["id"] == 1)
        return try Wire.error(of: response)
    }

    @Test("valid nested params are served")
    func validParams() async throws {
        let response = try await Wire.response(
            to: #"{"jsonrpc": "2.0", "method": "order.place", "params": \#(valid), "id": 1}"#, from: dispatcher)
        #expect(response?["result"] == 2)
    }

    @Test("a missing field is named as required")
    func missingField() async throws {
        let error = try await error(forParams: #"{"address": {"street": "Main", "number": 1}, "items": []}"#)
        #expect(error.code == -32602)
        #expect(error.message == "Invalid params: 'customer' is required")
        #expect(error.data == .object(["field": "customer"]))
    }

    @Test("a field of the wrong type is named with the type expected")
    func wrongType() async throws {
        let error = try await error(
            forParams: #"{"customer": 5, "address": {"street": "Main", "number": 1}, "items": []}"#)
        #expect(error.code == -32602)
        #expect(error.message == "Invalid params: 'customer' must be a string")
        #expect(error.data == .object(["field": "customer"]))
    }

    @Test("a null required field is named")
    func nullField() async throws {
        let error = try await error(
            forParams: #"{"customer": null, "address": {"street": "Main", "number": 1}, "items": []}"#)
        #expect(error.code == -32602)
        #expect(error.message == "Invalid params: 'customer' must not be null (expected a string)")
        #expect(error.data == .object(["field": "customer"]))
    }

    @Test("a nested field is named by its dotted path")
    func nestedField() async throws {
        let wrong = try await error(
            forParams: #"{"customer": "ada", "address": {"street": "Main", "number": "one"}, "items": []}"#)
        #expect(wrong.message == "Invalid params: 'address.number' must be a number")
        #expect(wrong.data == .object(["field": "address.number"]))

        let missing = try await error(forParams: #"{"customer": "ada", "address": {"number": 1}, "items": []}"#)
        #expect(missing.message == "Invalid params: 'address.street' is required")
        #expect(missing.data == .object(["field": "address.street"]))
    }

    @Test("a field inside an array element is named with its index")
    func arrayElementField() async throws {
        let wrong = try await error(
            forParams:
                #"{"customer": "ada", "address": {"street": "Main", "number": 1}, "items": [{"sku": "a", "quantity": 1}, {"sku": "b", "quantity": "2"}]}"#
        )
        #expect(wrong.code == -32602)
        #expect(wrong.message == "Invalid params: 'items[1].quantity' must be a number")
        #expect(wrong.data == .object(["field": "items[1].quantity"]))

        let missing = try await error(
            forParams: #"{"customer": "ada", "address": {"street": "Main", "number": 1}, "items": [{"quantity": 1}]}"#)
        #expect(missing.message == "Invalid params: 'items[0].sku' is required")
        #expect(missing.data == .object(["field": "items[0].sku"]))
    }

    @Test("a positional param of the wrong type is named by its index")
    func positionalElement() async throws {
        let error = try await error(forParams: #"[1, "two", 3]"#, method: Sum.name)
        #expect(error.code == -32602)
        #expect(error.message == "Invalid params: '[1]' must be a number")
        #expect(error.data == .object(["field": "[1]"]))
    }

    @Test("a missing positional param is named by its index as required")
    func missingPositional() async throws {
        let error = try await error(forParams: "[42]", method: Subtract.name)
        #expect(error.code == -32602)
        #expect(error.message == "Invalid params: '[1]' is required")
        #expect(error.data == .object(["field": "[1]"]))

        let null = try await self.error(forParams: "[42, null]", method: Subtract.name)
        #expect(null.message == "Invalid params: '[1]' must not be null (expected a number)")
    }

    @Test("an array where an object is expected is refused as a whole")
    func wrongContainer() async throws {
        let error = try await error(forParams: "[1, 2]")
        #expect(error.code == -32602)
        #expect(error.message == "Invalid params: expected params as an object")
        #expect(error.data == nil)
    }

    @Test("a malformed date names the field")
    func malformedDate() async throws {
        let error = try await error(
            forParams:
                #"{"customer": "ada", "address": {"street": "Main", "number": 1}, "items": [], "placedAt": "yesterday"}"#
        )
        #expect(error.code == -32602)
        #expect(
            error.message
                == "Invalid params: 'placedAt' is invalid: expected an ISO 8601 date such as 2026-11-22T10:00:00Z")
        #expect(error.data == .object(["field": "placedAt"]))
    }

    @Test(
        "dates with fractional seconds (JavaScript's toISOString) are read to the millisecond; without, whole seconds")
    func fractionalSeconds() throws {
        let decoder = RPCCodec.makeDecoder()
        let whole = try decoder.decode([Date].self, from: Data(#"["2026-11-22T10:00:00Z"]"#.utf8))
        let fraction = try decoder.decode([Date].self, from: Data(#"["2026-11-22T10:00:00.250Z"]"#.utf8))
        #expect(whole[0].timeIntervalSince1970 == 1_795_341_600)
        #expect(fraction[0].timeIntervalSince(whole[0]) == 0.25)
        #expect(throws: DecodingError.self) {
            _ = try decoder.decode([Date].self, from: Data(#"["2026-11-22 10:00"]"#.utf8))
        }
    }

    @Test("a malformed date inside an array element names its full path")
    func malformedNestedDate() async throws {
        var dispatcher = RPCDispatcher()
        dispatcher.register(Schedule.self) { params, _ in params.slots.count }
        let response = try await Wire.response(
            to:
                #"{"jsonrpc": "2.0", "method": "schedule", "params": {"slots": [{"at": "2026-11-22T10:00:00Z"}, {"at": "noon"}]}, "id": 1}"#,
            from: dispatcher)
        let error = try Wire.error(of: response)
        #expect(error.code == -32602)
        #expect(error.data == .object(["field": "slots[1].at"]))
        #expect(error.message.hasPrefix("Invalid params: 'slots[1].at' is invalid"))
    }

    @Test("a date of the wrong JSON type names the field")
    func dateOfWrongType() async throws {
        let error = try await error(
            forParams:
                #"{"customer": "ada", "address": {"street": "Main", "number": 1}, "items": [], "placedAt": 1795341600}"#
        )
        #expect(error.code == -32602)
        #expect(error.message == "Invalid params: 'placedAt' must be a string")
        #expect(error.data == .object(["field": "placedAt"]))
    }

    @Test("a param type's own validation error is reported as invalid params")
    func customValidation() async throws {
        let error = try await error(forParams: "[1, 2, 3]", method: Subtract.name)
        #expect(error.code == -32602)
        #expect(error.message == "Invalid params: expected exactly two numbers")
    }

    @Test("invalid params in a notification get no response")
    func invalidParamsNotification() async throws {
        let recorder = CallRecorder()
        let raw = await Wire.rawResponse(
            to: #"{"jsonrpc": "2.0", "method": "notify_sum", "params": ["x"]}"#,
            from: SpecDispatcher.make(recorder: recorder))
        #expect(raw == nil)
        #expect(await recorder.calls.isEmpty)
    }
}

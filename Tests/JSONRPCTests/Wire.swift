import Foundation
import JSONRPC
import Logging
import Testing

/// Sends literal request bodies to a dispatcher and reads responses back as parsed JSON.
enum Wire {
    /// A context with no token whose logger drops everything.
    static func context(bearerToken: String? = nil, logger: Logger? = nil) -> RPCRequestContext {
        RPCRequestContext(
            bearerToken: bearerToken,
            logger: logger ?? Logger(label: "JSONRPCTests") { _ in SwiftLogNoOpLogHandler() }
        )
    }

    /// Parses literal JSON text, failing the test when it is not JSON.
    static func json(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// The raw response body for `body`, or `nil` when the dispatcher answers with nothing (HTTP 204).
    static func rawResponse(
        to body: String,
        from dispatcher: RPCDispatcher,
        context: RPCRequestContext = Wire.context()
    ) async -> Data? {
        await dispatcher.handle(body: Data(body.utf8), context: context)
    }

    /// The parsed response for `body`, or `nil` when the dispatcher answers with nothing (HTTP 204).
    static func response(
        to body: String,
        from dispatcher: RPCDispatcher,
        context: RPCRequestContext = Wire.context()
    ) async throws -> JSONValue? {
        guard let data = await rawResponse(to: body, from: dispatcher, context: context) else { return nil }
        return try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// The `error` object of a single response.
    static func error(of response: JSONValue?) throws -> (code: Int64, message: String, data: JSONValue?) {
        let error = try #require(response?["error"])
        guard case .int(let code) = try #require(error["code"]),
            case .string(let message) = try #require(error["message"])
        else {
            Issue.record("malformed error object \(error)")
            throw WireError.malformed
        }
        return (code, message, error["data"])
    }

    enum WireError: Error { case malformed }
}

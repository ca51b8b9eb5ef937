import Foundation
import HTTPTypes
import Hummingbird

/// A request as a mock saw it: everything a test may want to assert on, read in full.
public struct MockRequest: Sendable {
    public var method: String
    /// Path and query, exactly as sent.
    public var uri: String
    public var path: String
    /// Header values by lowercased name.
    public var headers: [String: String]
    public var body: Data

    public init(_ request: Request, maxBody: Int = 1 << 20) async throws {
        method = request.method.rawValue
        uri = request.uri.description
        path = request.uri.path
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName.lowercased()
            // A repeated header shows up comma-joined, so tests that expect one value notice duplicates.
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        self.headers = headers
        body = Data(try await request.body.collect(upTo: maxBody).readableBytesView)
    }

    /// The body parsed as `application/x-www-form-urlencoded`.
    public var form: [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}

extension Response {
    /// A response with a JSON (or any) body and extra headers.
    public static func mock(
        _ status: HTTPResponse.Status, body: String = "", contentType: String = "application/json; charset=UTF-8",
        headers: [(String, String)] = []
    ) -> Response {
        var fields = HTTPFields()
        if !body.isEmpty { fields[.contentType] = contentType }
        for (name, value) in headers {
            fields.append(HTTPField(name: HTTPField.Name(name)!, value: value))
        }
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}

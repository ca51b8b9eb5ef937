import Foundation
import SharedModels
import Testing

/// Loads the golden JSON files in `Fixtures/` and checks values against them.
enum Fixture {
    /// The `Fixtures` directory copied into the test bundle.
    static func directory() throws -> URL {
        try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil), "Fixtures missing from the bundle")
    }

    /// The bytes of `<name>.json`.
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory().appendingPathComponent("\(name).json"))
    }

    /// `<name>.json` as a JSON value, for comparisons that ignore key order and whitespace.
    static func json(_ name: String) throws -> JSONValue {
        try RPCCodec.makeDecoder().decode(JSONValue.self, from: data(name))
    }

    /// Decodes `<name>.json` into `T` with the shared decoder, re-encodes it with the shared encoder,
    /// and expects the same JSON back: nothing lost, nothing added.
    @discardableResult
    static func roundTrip<T: Codable>(
        _ type: T.Type,
        _ name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> T {
        let value = try RPCCodec.makeDecoder().decode(T.self, from: data(name))
        let reencoded = try RPCCodec.makeDecoder().decode(JSONValue.self, from: RPCCodec.makeEncoder().encode(value))
        let fixture = try json(name)
        #expect(
            reencoded == fixture, "\(name).json does not survive a decode/encode round trip",
            sourceLocation: sourceLocation)
        return value
    }

    /// Round-trips `<fixture>.params.json` (or `.minimal.params.json`) through `M.Params`,
    /// after checking that `M.name` is the fixture's name.
    static func params<M: RPCMethod>(
        _ method: M.Type,
        _ fixture: String,
        minimal: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> M.Params {
        #expect(M.name == fixture, sourceLocation: sourceLocation)
        return try roundTrip(
            M.Params.self, "\(fixture)\(minimal ? ".minimal" : "").params", sourceLocation: sourceLocation)
    }

    /// Round-trips `<fixture>.result.json` (or `.minimal.result.json`) through `M.Result`,
    /// after checking that `M.name` is the fixture's name.
    static func result<M: RPCMethod>(
        _ method: M.Type,
        _ fixture: String,
        minimal: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> M.Result {
        #expect(M.name == fixture, sourceLocation: sourceLocation)
        return try roundTrip(
            M.Result.self, "\(fixture)\(minimal ? ".minimal" : "").result", sourceLocation: sourceLocation)
    }

    /// A UTC instant built without any ISO 8601 parsing, so it checks the codec rather than agreeing with it.
    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return calendar.date(from: components)!
    }
}

import ChildProcesses
import Foundation
import TestSupport

/// A `/metrics` body as the reference parser (Python's `prometheus_client.parser`) reads it: each family's type and
/// the label names of its samples. Parsing fails loudly (the parser throws) on anything that breaks the format.
struct PrometheusExposition: Decodable {
    struct Family: Decodable {
        var type: String
        /// Each sample: its name (`…_bucket`, `…_count`, …) and its labels.
        var samples: [Sample]
    }

    struct Sample: Decodable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    var families: [String: Family]

    /// The reference parser, run by `python3`.
    static let script = """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        families = {}
        for family in text_string_to_metric_families(open(sys.argv[1]).read()):
            families[family.name] = {"type": family.type, "samples": [
                {"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples]}
        print(json.dumps({"families": families}))
        """

    /// A Python with `prometheus_client` (Debian's `python3-prometheus-client`); `nil` when there is none.
    static var python: String? { PythonInterpreter.path(importing: ["prometheus_client"]) }
    static var isAvailable: Bool { python != nil }

    /// Parses `text` with the reference parser; throws when it refuses the text.
    static func parse(_ text: String) async throws -> PrometheusExposition {
        let file = TemporaryDirectory.processRootURL.appendingPathComponent("metrics-\(UUID().uuidString).txt")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await run(["-c", script, file.path])
        guard result.status == 0 else {
            throw ParseError(description: "prometheus_client refused the exposition: \(result.error)")
        }
        return try JSONDecoder().decode(PrometheusExposition.self, from: result.output)
    }

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    /// Label names of the samples named `name` (every sample of a family has one label set per series).
    func labelNames(of family: String, sample name: String? = nil) -> Set<Set<String>> {
        Set((families[family]?.samples ?? []).filter { $0.name == (name ?? family) }.map { Set($0.labels.keys) })
    }

    /// The sum of the samples named `name` whose labels include `labels`.
    func value(_ name: String, family: String? = nil, _ labels: [String: String] = [:]) -> Double {
        var total = 0.0
        for sample in families[family ?? name]?.samples ?? [] where sample.name == name {
            if labels.allSatisfy({ sample.labels[$0.key] == $0.value }) { total += sample.value }
        }
        return total
    }

    private static func run(_ arguments: [String]) async throws -> (status: Int32, output: Data, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python ?? "/usr/bin/python3")
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        return try await process.runCapturingOutput()
    }
}

import Foundation
import ServiceCore
import SharedModels
import TestSupport
import Testing

/// The docs name only what exists: every repository path, `SECUREPUSH_*` variable and RPC method that README.md and
/// docs/ mention is found in the repository (a renamed file or variable cannot leave a stale document behind).
@Suite("What the docs name exists")
struct DocsReferenceTests {
    static let root = RepositorySources.root

    /// Paths the docs name that are made by running something, not committed: `Benchmarks/run.sh`'s output, the
    /// operator's own compose settings (copied from `compose/.env.example`) and the browser tests' screenshot.
    static let madeByRunning = ["Benchmarks/results", "compose/.env", ".ci/artifacts"]

    /// Dotted names in the docs that are not RPC methods: SQLite files, result files, log fields and span names.
    static let notMethods: Set<String> = [
        "auth.sqlite", "store.sqlite", "dispatch.sqlite", "devices.json", "auth.limit", "auth.scopes", "auth.token",
        "push.platform", "push.deliver",
        // Audit entry types (docs/compliance.md).
        "auth.signout", "devices.moved", "devices.registered", "devices.unregistered", "devices.verified",
        "store.fetch",
        "store.receipt",
    ]

    /// README.md and every Markdown file under docs/, with their text.
    static func documents() throws -> [(name: String, text: String)] {
        var names = ["README.md", "compose/README.md", "Benchmarks/README.md"]
        let docs = root.appendingPathComponent("docs")
        if let walker = FileManager.default.enumerator(atPath: docs.path) {
            for case let path as String in walker where path.hasSuffix(".md") { names.append("docs/" + path) }
        }
        return try names.map { ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    @Test("every repository path the docs name exists")
    func paths() throws {
        var missing: [String] = []
        for (name, text) in try Self.documents() {
            for match in text.matches(
                of: /(?:^|[^\w.\/-])((?:Services|Shared|Clients|Tests|Benchmarks|compose|docs|\.ci)\/[\w+.\/-]*[\w+])/)
            {
                let path = String(match.output.1)
                // A pattern, not a path (`Services/<Directory>/…`), or generated output.
                if path.contains("<") || path.contains("*") { continue }
                if Self.madeByRunning.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) { continue }
                if !FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path) {
                    missing.append("\(name): \(path)")
                }
            }
        }
        #expect(missing == [], "paths the docs name that do not exist")
    }

    @Test("every SECUREPUSH_ variable the docs name is declared in SettingCatalog or read somewhere in the repository")
    func variables() throws {
        // A declared setting counts (SettingCatalogTests checks that each is read); the catalog's text does not, or a
        // variable its descriptions merely mention would pass.
        let sources = RepositorySources.text(excluding: ["SettingCatalog.swift"])
        let declared = Set(SettingCatalog.all.map(\.name))
        try #require(!sources.isEmpty)
        var unknown: Set<String> = []
        for (name, text) in try Self.documents() {
            for match in text.matches(of: /SECUREPUSH_[A-Z0-9_]*[A-Z0-9]/) {
                let variable = String(match.output)
                // A family written with a wildcard (`SECUREPUSH_APNS_*`) ends in `_` and is not matched whole.
                if text[match.range.upperBound...].hasPrefix("_") { continue }
                if !declared.contains(variable), !sources.contains(variable) { unknown.insert("\(name): \(variable)") }
            }
        }
        #expect(unknown.sorted() == [], "variables the docs name that no code declares or reads")
    }

    @Test("every relative link in the docs reaches a file, and its #anchor a heading there")
    func links() throws {
        var broken: [String] = []
        for (name, text) in try Self.documents() {
            let directory = URL(fileURLWithPath: name).deletingLastPathComponent().relativePath
            for match in text.matches(of: /\]\(([^)\s]+)\)/) {
                let link = String(match.output.1)
                if link.firstMatch(of: /^[a-z]+:/) != nil { continue }  // https:, mailto:
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = parts[0].isEmpty ? name : (directory == "." ? "" : directory + "/") + parts[0]
                let file = Self.root.appendingPathComponent(path).standardized
                guard FileManager.default.fileExists(atPath: file.path) else {
                    broken.append("\(name): \(link) (no such file)")
                    continue
                }
                guard parts.count == 2, file.pathExtension == "md" else { continue }
                let target = try String(contentsOf: file, encoding: .utf8)
                if !Self.anchors(in: target).contains(String(parts[1])) {
                    broken.append("\(name): \(link) (no such heading)")
                }
            }
        }
        #expect(broken == [], "links the docs hold that lead nowhere")
    }

    /// The anchors GitHub gives a Markdown file's headings (outside code blocks): lowercased, punctuation but `-` and
    /// `_` dropped, spaces made `-`.
    static func anchors(in markdown: String) -> Set<String> {
        var anchors: Set<String> = []
        var inFence = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle() }
            guard !inFence, let heading = line.firstMatch(of: /^#{1,6} (.*)$/) else { continue }
            let text = heading.output.1.lowercased().filter { $0.isLetter || $0.isNumber || "-_ ".contains($0) }
            anchors.insert(text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " ", with: "-"))
        }
        return anchors
    }

    @Test("every RPC method the docs name is served (or is push.notify)")
    func methods() throws {
        let known = MethodCatalog.auth.union(MethodCatalog.store).union(MethodCatalog.dispatch).union([
            Push.Notify.name
        ])
        var unknown: Set<String> = []
        for (name, text) in try Self.documents() {
            for match in text.matches(of: /`((?:auth|store|devices|push)\.[a-z][A-Za-z]*)`/) {
                let method = String(match.output.1)
                if !known.contains(method), !Self.notMethods.contains(method) { unknown.insert("\(name): \(method)") }
            }
        }
        #expect(unknown.sorted() == [], "methods the docs name that no service serves")
    }
}

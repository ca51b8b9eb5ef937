import Foundation

/// README.md's Quick start and CLI walk as steps a test can run: `console` blocks are commands (`$ …`) with the output
/// README shows under each, `text` blocks are what the running `securepush listen` prints next, and
/// `<!-- readme-test: stop securepush up -->` is the Ctrl-C README asks for. In shown output `…` stands for any text.
struct ReadmeScript {
    enum Step: CustomStringConvertible {
        /// Run `command`; it prints `expected` (all of it, for a command that exits; in order, for `up` and `listen`).
        case run(command: String, expected: [String])
        /// The running `securepush listen` prints these lines next (in order, other lines may come between).
        case listenerPrints([String])
        /// Interrupt the most recent background command containing this text, as Ctrl-C does.
        case stop(String)

        var description: String {
            switch self {
            case .run(let command, _): "$ \(command)"
            case .listenerPrints(let lines): "listener prints \(lines)"
            case .stop(let what): "stop \(what)"
            }
        }
    }

    /// The lines of the first `sh` block of `## Quick start` (install and build).
    let setup: [String]
    let steps: [Step]

    init(markdown: String) throws {
        var setup: [String]?
        var steps: [Step] = []
        var section = ""
        var fence: (kind: String, lines: [String])?
        for line in markdown.components(separatedBy: "\n") {
            if var open = fence {
                if line.hasPrefix("```") {
                    fence = nil
                    switch open.kind {
                    case "console": steps += try Self.commands(in: open.lines)
                    case "text": steps.append(.listenerPrints(open.lines))
                    case "sh" where section == "## Quick start" && setup == nil: setup = open.lines
                    default: break
                    }
                } else {
                    open.lines.append(line)
                    fence = open
                }
            } else if line.hasPrefix("```") {
                fence = (String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), [])
            } else if line.hasPrefix("## ") {
                section = line
            } else if let range = line.range(of: "<!-- readme-test: stop "), line.hasSuffix(" -->") {
                steps.append(.stop(String(line[range.upperBound...].dropLast(" -->".count))))
            }
        }
        guard let setup else { throw ShellCommandError("README.md: no sh block under ## Quick start") }
        self.setup = setup
        self.steps = steps
    }

    private static func commands(in lines: [String]) throws -> [Step] {
        var steps: [Step] = []
        var current: (command: String, expected: [String])?
        for line in lines {
            if line.hasPrefix("$ ") {
                if let current { steps.append(.run(command: current.command, expected: current.expected)) }
                current = (String(line.dropFirst(2)), [])
            } else {
                guard current != nil else { throw ShellCommandError("README.md: output before any command: \(line)") }
                current!.expected.append(line)
            }
        }
        if let current { steps.append(.run(command: current.command, expected: current.expected)) }
        return steps
    }

    /// Whether `line` is what README shows as `shown`, where `…` in `shown` stands for any text.
    static func matches(_ line: String, shown: String) -> Bool {
        let parts = shown.components(separatedBy: "…")
        guard parts.count > 1 else { return line == shown }
        guard line.hasPrefix(parts[0]), line.hasSuffix(parts[parts.count - 1]) else { return false }
        var rest = line[line.index(line.startIndex, offsetBy: parts[0].count)...]
        rest = rest.dropLast(parts[parts.count - 1].count)
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let range = rest.range(of: part) else { return false }
            rest = rest[range.upperBound...]
        }
        return true
    }

    /// Where `shown` occurs in order within `lines` from `start`: the index after the last match, or `nil`.
    static func subsequenceEnd(of shown: [String], in lines: [String], from start: Int) -> Int? {
        var index = start
        for expected in shown {
            guard let found = lines[min(index, lines.count)...].firstIndex(where: { matches($0, shown: expected) })
            else { return nil }
            index = found + 1
        }
        return index
    }
}

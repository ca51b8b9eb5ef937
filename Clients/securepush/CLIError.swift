/// A CLI failure, as people read it: what happened, what to do next, and (with `--verbose`) the error underneath.
struct CLIError: Error, CustomStringConvertible {
    /// What happened, one line: printed after `error: `.
    var what: String
    /// What to do about it: printed after `hint: `.
    var hint: String?
    /// What the process exits with.
    var exitCode: CLIExitCode
    /// The underlying error, for bug reports (`--verbose`).
    var detail: String?

    init(_ what: String, hint: String? = nil, exitCode: CLIExitCode = .refused, detail: String? = nil) {
        self.what = what
        self.hint = hint
        self.exitCode = exitCode
        self.detail = detail
    }

    var description: String { what }

    /// The lines written to standard error.
    func lines(verbose: Bool) -> [String] {
        var lines = ["error: \(what)"]
        if let hint { lines.append("hint: \(hint)") }
        if verbose, let detail { lines.append("detail: \(detail)") }
        return lines
    }
}

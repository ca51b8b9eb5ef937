import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A password from the flag, else `SECUREPUSH_PASSWORD`, else a prompt (not echoed on a terminal).
func readPassword(flag: String?) throws -> String {
    if let flag { return flag }
    if let variable = ProcessInfo.processInfo.environment["SECUREPUSH_PASSWORD"], !variable.isEmpty { return variable }
    if isatty(STDIN_FILENO) == 1, let typed = getpass("Password: ") {
        return String(cString: typed)
    }
    guard let line = readLine(strippingNewline: true), !line.isEmpty else {
        throw CLIError("no password: pass --password, set SECUREPUSH_PASSWORD, or type it on standard input")
    }
    return line
}

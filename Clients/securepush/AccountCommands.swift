import ArgumentParser
import Foundation
import Logging
import SecurePushClient
import SharedModels

/// `securepush register`: create an account with auth.
struct RegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "register", abstract: "Create a user account.")

    @Option(help: "3–64 characters of a-z 0-9 . _ -") var username: String
    @Option(help: "8–72 bytes (or SECUREPUSH_PASSWORD, or typed at the prompt)") var password: String?
    @OptionGroup var endpoints: EndpointOptions

    func run() async throws {
        let password = try readPassword(flag: password)
        let device = try SecurePushDevice(endpoints: endpoints.endpoints, logger: cliLogger())
        let context = FailureContext(
            endpoints.endpoints, role: .account,
            conflictHint: "choose another username, or sign in with `securepush login --username \(username)` "
                + "if the account is yours")
        let userId: String
        do {
            userId = try await explainingFailures(context) {
                try await device.createAccount(username: username, password: password)
            }
        } catch {
            await device.shutdown()
            throw error
        }
        await device.shutdown()
        print("registered '\(username)': user id \(userId)")
        print("next: sign in on this machine with `securepush login --username \(username)`")
    }
}

/// `securepush login`: sign in and keep the session in a 0600 file.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Sign in and keep the session for `listen`.")

    @Option var username: String
    @Option(help: "the password (or SECUREPUSH_PASSWORD, or typed at the prompt)") var password: String?
    @OptionGroup var endpoints: EndpointOptions
    @OptionGroup var credentials: CredentialsOptions

    func run() async throws {
        let password = try readPassword(flag: password)
        let device = try SecurePushDevice(endpoints: endpoints.endpoints, logger: cliLogger())
        let session: DeviceSession
        do {
            session = try await explainingFailures(FailureContext(endpoints.endpoints, role: .account)) {
                try await device.signIn(username: username, password: password)
            }
        } catch {
            await device.shutdown()
            throw error
        }
        await device.shutdown()
        // Signing in again as the same user on the same deployment keeps this machine's device (its id and key), so
        // `listen` does not register a second one. Another user gets a device, and a key, of their own.
        let previous = try? SecretFile.read(StoredCredentials.self, from: credentials.path)
        var stored = StoredCredentials(
            username: username, endpoints: endpoints.endpoints, session: session, deviceId: nil)
        if let previous, previous.session.userId == session.userId, previous.endpoints == endpoints.endpoints {
            stored.deviceId = previous.deviceId
            stored.sealed = previous.sealed
        } else {
            try? FileManager.default.removeItem(atPath: StoredCredentials.deviceKeyPath(beside: credentials.path))
        }
        try SecretFile.write(stored, to: credentials.path)
        print("signed in as '\(username)' (user id \(session.userId)); session saved in \(credentials.displayPath)")
    }
}

/// A logger for the CLI's own diagnostics: quiet unless SECUREPUSH_LOG_LEVEL says otherwise.
func cliLogger() -> Logger {
    var logger = Logger(label: "securepush.cli")
    logger.logLevel =
        ProcessInfo.processInfo.environment["SECUREPUSH_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0.lowercased()) }
        ?? .warning
    return logger
}

/// Writes a line to standard output at once (unbuffered), so piped output shows each step as it happens.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes a line about the command's own state (not its result) to standard error at once.
func note(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

import Foundation
import Logging
import ServiceCore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc

    /// A real service process gives back its executable's read-only pages when `main` begins and once start-up is
    /// over (`MappedFilePages`), and keeps serving from the pages it maps again.
    @Suite("Start-up pages given back in a service process")
    struct StartUpPagesEndToEndTests {
        let logger = Logger(label: "pages-test", factory: { _ in SwiftLogNoOpLogHandler() })

        @Test("auth-service releases pages (when main begins; in release builds after start-up too), then serves")
        func releasesAndServes() async throws {
            let directory = try TemporaryDirectory(prefix: "pages")
            defer { directory.remove() }
            let processes = ServiceProcesses(
                environment: [
                    "SECUREPUSH_DATA_DIR": directory.path, "SECUREPUSH_BCRYPT_COST": "10",
                    "SECUREPUSH_LOG_LEVEL": "debug",
                ], logger: logger)
            do {
                let auth = try await processes.start("auth-service", "auth", "SECUREPUSH_AUTH_PORT")
                #if DEBUG
                    // Debug builds (what `swift test` runs) release when `main` begins only.
                    try await Task.sleep(for: MappedFilePages.startUpSettling + .seconds(1))
                    #expect(Self.released(in: auth.output, after: "start-up") == nil, "\(auth.output)")
                #else
                    let settled = await eventually(timeout: MappedFilePages.startUpSettling + .seconds(25)) {
                        Self.released(in: auth.output, after: "start-up") != nil
                    }
                    #expect(settled, "no release after start-up:\n\(auth.output)")
                    #expect((Self.released(in: auth.output, after: "start-up") ?? 0) > 0, "\(auth.output)")
                #endif
                #expect((Self.released(in: auth.output, after: "loading") ?? 0) > 0, "\(auth.output)")

                // What runs now runs from pages mapped again: a registration and a sign-in (bcrypt, SQLite, ES256).
                let account = #"{"username":"alice","password":"correct horse"}"#
                #expect(try await Self.call(auth, "auth.register", account).contains("userId"))
                #expect(try await Self.call(auth, "auth.login", account).contains("accessToken"))
                await processes.stopAll()
            } catch {
                await processes.stopAll(signal: SIGKILL)
                throw error
            }
        }

        /// The bytes of the `process.pages.released` line with `after=<point>` in a text log, if there is one.
        static func released(in output: String, after point: String) -> Int? {
            for line in output.split(separator: "\n") where line.contains("process.pages.released") {
                let fields = line.split(separator: " ")
                guard fields.contains(Substring("after=\(point)")),
                    let bytes = fields.first(where: { $0.hasPrefix("bytes=") })
                else { continue }
                return Int(bytes.dropFirst("bytes=".count))
            }
            return nil
        }

        /// Calls `method` on auth; returns the response body.
        static func call(_ auth: ServiceProcess, _ method: String, _ params: String) async throws -> String {
            let body = #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#
            let result = try await Curl.run(
                ["--http2-prior-knowledge", "-H", "content-type: application/json", "-d", body, "\(auth.url)/rpc"])
            #expect(result.status == 200)
            return result.body
        }
    }
#endif

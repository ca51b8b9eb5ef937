import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import TestSupport

/// What the test routes report to the test, and how the test steers them.
final class Probes: Sendable {
    /// Fired when `/wait` or `/slow-head` starts handling a request.
    let entered = Signal()
    /// Fired by the test to let a waiting handler go on.
    let release = Signal()
    /// Fired when `/endless` finds its client gone.
    let clientWentAway = Signal()
    private let waitCalls = Atomic<Int>(0)

    /// How many requests reached `/wait`.
    var waitCallCount: Int { waitCalls.load(ordering: .relaxed) }

    fileprivate func countWaitCall() {
        waitCalls.add(1, ordering: .relaxed)
    }
}

extension HTTPField.Name {
    static let echoMethod = Self("x-echo-method")!
    static let echoAuthority = Self("x-echo-authority")!
    static let echoPath = Self("x-echo-path")!
    static let echoHeader = Self("x-echo-header")!
    static let testHeader = Self("x-test")!
}

/// The routes the client tests talk to.
func makeTestRouter(probes: Probes = Probes()) -> Router<BasicRequestContext> {
    let router = Router()

    // Sends back the body, and the method, authority, path and x-test header it received.
    router.on("/echo", method: .post) { request, _ in try await echo(request) }
    router.on("/echo", method: .get) { request, _ in try await echo(request) }
    router.on("/prefix/echo", method: .get) { request, _ in try await echo(request) }

    // Answers only once the test fires `release` (or after 10 s).
    router.get("/wait") { _, _ -> Response in
        probes.countWaitCall()
        probes.entered.fire()
        let released = await probes.release.wait()
        return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: released ? "released" : "gave up")))
    }

    // `bytes` bytes, with a content-length, or streamed without one when `stream=1`.
    router.get("/big") { request, _ -> Response in
        let size = request.uri.queryParameters.get("bytes", as: Int.self) ?? 0
        let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 1024)
        guard request.uri.queryParameters.get("stream") == "1" else {
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(repeating: UInt8(ascii: "x"), count: size)))
        }
        return Response(
            status: .ok,
            body: ResponseBody { writer in
                for _ in 0..<(size / 1024) {
                    try await writer.write(chunk)
                }
                try await writer.finish(nil)
            }
        )
    }

    // Three chunks; before the second and third it waits for the test to fire `release`.
    router.get("/chunks") { _, _ -> Response in
        Response(
            status: .ok,
            headers: [.contentType: "text/event-stream"],
            body: ResponseBody { writer in
                for index in 1...3 {
                    if index > 1 {
                        guard await probes.release.wait() else { break }
                    }
                    try await writer.write(ByteBuffer(string: "chunk-\(index)\n"))
                }
                try await writer.finish(nil)
            }
        )
    }

    // Writes a chunk every 20 ms (at most 250) until the client goes away.
    router.get("/endless") { _, _ -> Response in
        Response(
            status: .ok,
            body: ResponseBody { writer in
                do {
                    for index in 0..<250 {
                        try await writer.write(ByteBuffer(string: "tick-\(index)\n"))
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    try await writer.finish(nil)
                } catch {
                    probes.clientWentAway.fire()
                    throw error
                }
            }
        )
    }

    // Sends the head and a first chunk at once, the second chunk when the test fires `release`.
    router.get("/slow-body") { _, _ -> Response in
        Response(
            status: .ok,
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "first\n"))
                guard await probes.release.wait() else { return }
                try await writer.write(ByteBuffer(string: "second\n"))
                try await writer.finish(nil)
            }
        )
    }

    // Sends nothing, not even the head, until the test fires `release` (or after 10 s).
    router.get("/slow-head") { _, _ -> Response in
        probes.entered.fire()
        _ = await probes.release.wait()
        return Response(
            status: .ok,
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "late\n"))
                try await writer.finish(nil)
            }
        )
    }

    return router
}

private func echo(_ request: Request) async throws -> Response {
    let body = try await request.body.collect(upTo: 1 << 20)
    var headers = HTTPFields()
    headers[.echoMethod] = request.method.rawValue
    headers[.echoAuthority] = request.head.authority ?? ""
    headers[.echoPath] = request.head.path ?? ""
    headers[.echoHeader] = request.headers[.testHeader] ?? ""
    return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
}

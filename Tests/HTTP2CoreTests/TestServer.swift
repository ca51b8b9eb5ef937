import Foundation
import HTTP2Core
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// A core server on 127.0.0.1, port 0, with the routes the tests use:
/// `/hello` (answered now), `/echo` (the body back, now), `/bytes?n=N` (N bytes), `/empty` (204),
/// `/async` (after a suspension), `/hold` (waits until cancelled), `/slow` (answers 300 ms after arriving),
/// `/events` (a streaming response of three chunks).
final class TestServer: Sendable {
    let server: HTTP2CoreServer
    /// What the server's connections hold now (open connections, buffered bytes).
    let load = HTTP2ServerLoad()
    /// Fires once per `/hold` request arriving; once per `/hold` task seeing its cancellation; once per `/slow`.
    let holdArrived = Flag()
    let holdCancelled = Flag()
    let holdClosed = Flag()
    let slowArrived = Flag()
    /// Results of the `/events` writes' futures: `true` per successful write.
    let eventWrites = Mutex<[Bool]>([])

    var port: Int { server.port }
    var url: String { "http://127.0.0.1:\(server.port)" }

    init(
        tls: TLSConfiguration? = nil, cleartextHTTP1: Bool = false, limits: HTTP2Limits = HTTP2Limits(),
        admission: HTTP2ConnectionAdmission = HTTP2ConnectionAdmission()
    ) async throws {
        let box = Mutex<TestServer?>(nil)
        server = try await HTTP2CoreServer.start(
            configuration: .init(
                tls: tls, cleartextHTTP1: cleartextHTTP1, limits: limits, admission: admission, load: load),
            logger: Logger(label: "h2core-test")
        ) { request, responder in
            box.withLock { $0 }!.handle(request, responder)
        }
        box.withLock { $0 = self }
    }

    private func handle(_ request: HTTP2Request, _ responder: HTTP2Responder) -> HTTP2Reply {
        let path = request.path.split(separator: "?").first.map(String.init) ?? ""
        switch path {
        case "/hello":
            return .response(text("hello over HTTP/\(request.httpVersion)"))
        case "/echo":
            var headers = HTTP2Headers()
            headers.add("content-type", request.headers["content-type"] ?? "none")
            headers.add("x-method", request.method)
            return .response(HTTP2Response(status: 200, headers: headers, body: request.body))
        case "/bytes":
            let count = Int(request.path.split(separator: "=").last ?? "") ?? 0
            return .response(HTTP2Response(status: 200, body: ByteBuffer(repeating: UInt8(ascii: "x"), count: count)))
        case "/empty":
            return .response(HTTP2Response(status: 204))
        case "/async":
            return .async {
                try? await Task.sleep(for: .milliseconds(50))
                return self.text("answered after a suspension")
            }
        case "/hold":
            holdArrived.fire()
            responder.onClose { self.holdClosed.fire() }
            return .async {
                try? await Task.sleep(for: .seconds(30))
                if Task.isCancelled { self.holdCancelled.fire() }
                return self.text("held")
            }
        case "/slow":
            slowArrived.fire()
            return .async {
                try? await Task.sleep(for: .milliseconds(300))
                return self.text("slow done")
            }
        case "/events":
            let stream = responder.startStream(headers: ["content-type": "text/event-stream"])
            Task {
                for index in 0..<3 {
                    let written = (try? await stream.write(ByteBuffer(string: "event \(index)\n")).get()) != nil
                    eventWrites.withLock { $0.append(written) }
                    try? await Task.sleep(for: .milliseconds(20))
                }
                stream.finish()
            }
            return .deferred
        default:
            return .response(HTTP2Response(status: 404))
        }
    }

    private func text(_ string: String) -> HTTP2Response {
        HTTP2Response(status: 200, headers: ["content-type": "text/plain"], body: ByteBuffer(string: string))
    }

    func shutdown() async { await server.shutdown(timeout: .seconds(5)) }
}

/// A one-way event between a server handler and a test; fires are kept until awaited.
final class Flag: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream() }

    func fire() { continuation.yield() }

    /// Waits for the next fire, at most `timeout`; `false` when none came.
    func wait(timeout: Duration = .seconds(10)) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                var iterator = self.stream.makeAsyncIterator()
                return await iterator.next() != nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}

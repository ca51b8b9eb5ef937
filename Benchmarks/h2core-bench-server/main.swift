import Foundation
import HTTP2Core
import Logging
import NIOCore
import NIOPosix

// The HTTP/2 core alone, for Benchmarks/run.sh --only h2core: answers `POST /rpc` with a fixed body (the same bytes
// nginx and nghttpd serve in that run) on the event loop, cleartext HTTP/2 with prior knowledge.
//
//   h2core-bench-server --port N --body-file FILE [--threads 1]
//
// Silent (Benchmarks/bench.py reports any output as a log finding); runs until killed.

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let name = arguments.next() {
    guard name.hasPrefix("--"), let value = arguments.next() else {
        FileHandle.standardError.write(
            Data("usage: h2core-bench-server --port N --body-file FILE [--threads T]\n".utf8))
        exit(2)
    }
    options[String(name.dropFirst(2))] = value
}
guard let port = options["port"].flatMap({ Int($0) }), let path = options["body-file"],
    let body = FileManager.default.contents(atPath: path)
else {
    FileHandle.standardError.write(Data("h2core-bench-server: --port and a readable --body-file are required\n".utf8))
    exit(2)
}
let threads = options["threads"].flatMap { Int($0) } ?? 1

let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
let response = HTTP2Response(
    status: 200, headers: ["content-type": "application/json"], body: ByteBuffer(bytes: body))
let server = try await HTTP2CoreServer.start(
    configuration: .init(host: "127.0.0.1", port: port), group: group,
    logger: Logger(label: "h2core-bench-server")
) { request, _ in
    request.method == "POST" && request.path == "/rpc" ? .response(response) : .response(HTTP2Response(status: 404))
}
_ = server
while true { try await Task.sleep(for: .seconds(3600)) }

import Foundation
import JSONRPC
import SecurePushDeviceCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The device SDK's transport on Foundation's `URLSession`: the platform's own HTTP stack on Apple (HTTP/2 over TLS,
/// the system's trust store), libcurl's on Linux (FoundationNetworking). The direct channel is read with a
/// `URLSessionDataDelegate` (Linux has no `bytes(for:)`), which works on both.
///
/// ```swift
/// let transport = URLSessionTransport(
///     auth: URL(string: "https://auth.bank.example")!, store: URL(string: "https://store.bank.example")!,
///     dispatch: URL(string: "https://push.bank.example")!)
/// let device = SecurePushDevice(transport: transport, session: savedSession, logger: logger)
/// ```
public final class URLSessionTransport: SecurePushTransport {
    /// Each service's base URL.
    public let baseURLs: [SecurePushService: URL]
    private let configuration: URLSessionConfiguration
    private let session: URLSession

    /// - Parameters:
    ///   - configuration: the sessions' configuration (`.ephemeral` by default: nothing cached or stored on disk);
    ///     its `timeoutIntervalForRequest` bounds each call.
    public init(auth: URL, store: URL, dispatch: URL, configuration: URLSessionConfiguration = .ephemeral) {
        baseURLs = [.auth: auth, .store: store, .dispatch: dispatch]
        // A copy: the caller's configuration is left as it was.
        let configuration = configuration.copy() as! URLSessionConfiguration
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        self.configuration = configuration
        session = URLSession(configuration: configuration)
    }

    public func rpc(_ service: SecurePushService, extraHeaders: [(String, String)]) -> any RPCTransport {
        URLSessionRPCTransport(
            session: session, url: baseURLs[service]!.appendingPathComponent("rpc"), peerName: service.rawValue,
            extraHeaders: extraHeaders)
    }

    public func eventStream(
        path: String, headers: [(String, String)], opened: @Sendable () -> Void,
        received: @Sendable (Data) throws -> Void
    ) async throws -> Int {
        // Under the dispatch URL's own path, as `/rpc` is (a deployment behind a path prefix).
        var request = URLRequest(url: baseURLs[.dispatch]!.appendingPathComponent(path))
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        // The stream is idle between events (a keepalive comes every SECUREPUSH_DISPATCH_KEEPALIVE, 15 s by default,
        // at most an hour): the request's idle timeout is a day. (Not infinity: libcurl takes whole milliseconds.)
        request.timeoutInterval = 86_400
        let reader = EventStreamDelegate()
        // A session per stream: a session's delegate is fixed when it is made.
        let streaming = URLSession(configuration: configuration, delegate: reader, delegateQueue: nil)
        defer { streaming.finishTasksAndInvalidate() }
        let task = streaming.dataTask(with: request)
        return try await withTaskCancellationHandler {
            try await reader.run(task, opened: opened, received: received)
        } onCancel: {
            task.cancel()
        }
    }

    public func shutdown() async {
        session.finishTasksAndInvalidate()
    }
}

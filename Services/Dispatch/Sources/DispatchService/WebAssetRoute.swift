import Foundation
import HTTP2Core
import NIOCore
import WebAssets

/// Serves the browser SDK at `/sdk/…` and the web inbox at `/inbox/` (files embedded from `Clients/Web`), and
/// `/inbox/config.json`, the services' URLs for the page. The inbox's answers carry its Content-Security-Policy;
/// every answer has an ETag (`If-None-Match` gets 304) and is revalidated before reuse (`no-cache`), so a new
/// release is picked up at once.
struct WebAssetRoute: Sendable {
    let inbox: WebInboxConfiguration

    /// The reply for `GET`/`HEAD` of an SDK or inbox path; `nil` for any other request.
    func route(_ request: HTTP2Request, _ responder: HTTP2Responder) -> HTTP2Reply? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        let path =
            request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(
                String.init) ?? ""
        guard path.hasPrefix("/sdk/") || path.hasPrefix("/inbox") else { return nil }
        let isHead = request.method == "HEAD"
        switch path {
        case "/inbox":
            return .response(HTTP2Response(status: 308, headers: ["location": "/inbox/"]))
        case "/inbox/config.json":
            return .response(
                answer(
                    body: Array(inbox.configJSON), contentType: "application/json", etag: nil, inInbox: true,
                    request: request, isHead: isHead))
        default:
            let served = path == "/inbox/" ? "/inbox/index.html" : path
            guard let file = WebAssets.file(at: served) else { return nil }
            return .response(
                answer(
                    body: file.bytes, contentType: file.contentType, etag: file.etag,
                    inInbox: path.hasPrefix("/inbox/"),
                    request: request, isHead: isHead))
        }
    }

    private func answer(
        body: [UInt8], contentType: String, etag: String?, inInbox: Bool, request: HTTP2Request, isHead: Bool
    ) -> HTTP2Response {
        var headers: HTTP2Headers = [
            "content-type": contentType,
            "cache-control": "no-cache",
            "x-content-type-options": "nosniff",
            "referrer-policy": "no-referrer",
        ]
        if inInbox {
            headers.add("content-security-policy", inbox.contentSecurityPolicy)
            headers.add("x-frame-options", "DENY")
        }
        if let etag {
            headers.add("etag", etag)
            if let wanted = request.headers["if-none-match"],
                wanted.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag })
            {
                return HTTP2Response(status: 304, headers: headers)
            }
        }
        if isHead {
            headers.add("content-length", String(body.count))
            return HTTP2Response(status: 200, headers: headers)
        }
        return HTTP2Response(status: 200, headers: headers, body: ByteBuffer(bytes: body))
    }
}

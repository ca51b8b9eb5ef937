import NIOCore

/// Where an ``HTTP2Client`` connects, parsed from its base URL.
struct HTTP2Endpoint: Sendable, Hashable {
    /// `true` for `https`.
    var usesTLS: Bool
    /// Host name or IP literal, without IPv6 brackets.
    var host: String
    var port: Int
    /// Path prefix of the base URL without a trailing slash; empty for none.
    var basePath: String

    /// `host[:port]` as the `:authority` pseudo-header wants it.
    var authority: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let defaultPort = usesTLS ? 443 : 80
        return port == defaultPort ? hostPart : "\(hostPart):\(port)"
    }

    /// Whether `host` is an IP literal, which must not be sent as TLS SNI.
    var hostIsIPAddress: Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }

    /// Parses `http://host[:port][/path]` or `https://…`; anything else is ``HTTP2ClientError/invalidURL``.
    init(parsing url: String) throws(HTTP2ClientError) {
        func invalid(_ reason: String) -> HTTP2ClientError {
            HTTP2ClientError(.invalidURL, "'\(url)': \(reason)")
        }
        var rest: Substring
        if url.lowercased().hasPrefix("https://") {
            usesTLS = true
            rest = url.dropFirst("https://".count)
        } else if url.lowercased().hasPrefix("http://") {
            usesTLS = false
            rest = url.dropFirst("http://".count)
        } else {
            throw invalid("the scheme must be http or https")
        }
        if rest.contains(where: { "?#@ \\".contains($0) }) {
            throw invalid("queries, fragments, user info and spaces are not allowed")
        }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authorityText = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        basePath = String(rest.hasSuffix("/") ? rest.dropLast() : rest)

        let portText: Substring?
        if authorityText.hasPrefix("[") {
            guard let close = authorityText.firstIndex(of: "]") else { throw invalid("unclosed '[' in the host") }
            host = String(authorityText[authorityText.index(after: authorityText.startIndex)..<close])
            let afterHost = authorityText[authorityText.index(after: close)...]
            if afterHost.isEmpty {
                portText = nil
            } else if afterHost.hasPrefix(":") {
                portText = afterHost.dropFirst()
            } else {
                throw invalid("unexpected text after the IPv6 address")
            }
            guard (try? SocketAddress(ipAddress: host, port: 0)) != nil else { throw invalid("bad IPv6 address") }
        } else {
            let parts = authorityText.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw invalid("IPv6 addresses must be written in brackets") }
            host = String(parts[0])
            portText = parts.count == 2 ? parts[1] : nil
            let allowed = host.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "." || scalar == "-"
                        || scalar == "_")
            }
            guard allowed else { throw invalid("bad host name") }
        }
        guard !host.isEmpty else { throw invalid("missing host") }
        if let portText {
            guard let port = Int(portText), (1...65_535).contains(port) else { throw invalid("bad port '\(portText)'") }
            self.port = port
        } else {
            port = usesTLS ? 443 : 80
        }
    }
}

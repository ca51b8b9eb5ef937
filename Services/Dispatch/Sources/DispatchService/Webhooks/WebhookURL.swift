import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A webhook endpoint's URL, checked against the outbound rules Web Push endpoints follow: `https://` to a public
/// host; a loopback, private or link-local host only when listed in `SECUREPUSH_WEBHOOK_ALLOWED_HOSTS`; `http://`
/// only to a listed host, and never in production; with a list, only listed hosts at all.
struct WebhookURL: Sendable, Hashable {
    /// Longest URL accepted.
    static let maxLength = 2_048

    /// The URL as given.
    let url: URL
    /// Its host, lowercased, without brackets.
    let host: String
    /// Its port (the scheme's default when it names none).
    let port: Int

    /// Checks `text` against `configuration`'s rules; throws `-32602` naming `url` with the rule it breaks.
    init(_ text: String, configuration: WebhookConfiguration) throws(DispatchError) {
        guard text.utf8.count <= Self.maxLength else {
            throw .invalidField("url", "must be at most \(Self.maxLength) bytes")
        }
        guard let components = URLComponents(string: text), let url = components.url,
            let scheme = components.scheme?.lowercased(), let rawHost = components.host, !rawHost.isEmpty
        else {
            throw .invalidField("url", "must be an absolute https:// URL")
        }
        guard components.user == nil, components.password == nil else {
            throw .invalidField("url", "must not carry a user name or password")
        }
        guard components.fragment == nil else { throw .invalidField("url", "must not have a #fragment") }
        let host = rawHost.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if configuration.allowedHosts != nil, !configuration.isListed(host: host) {
            throw .invalidField(
                "url",
                configuration.allowedHosts!.isEmpty
                    ? "cannot be accepted: SECUREPUSH_WEBHOOK_ALLOWED_HOSTS must be set in production"
                    : "host '\(host)' is not in SECUREPUSH_WEBHOOK_ALLOWED_HOSTS")
        }
        switch scheme {
        case "https":
            break
        case "http":
            guard configuration.isListed(host: host), !configuration.isProduction else {
                throw .invalidField(
                    "url",
                    configuration.isProduction
                        ? "must be https:// in production"
                        : "must be https:// (http:// only to a host in SECUREPUSH_WEBHOOK_ALLOWED_HOSTS)")
            }
        default:
            throw .invalidField("url", "must be an https:// URL, not \(scheme):")
        }
        if !configuration.isListed(host: host),
            host == "localhost" || host.hasSuffix(".localhost")
                || OutboundAddresses.isNonPublic(host)
        {
            throw .invalidField(
                "url",
                "host '\(host)' is not a public address (list it in SECUREPUSH_WEBHOOK_ALLOWED_HOSTS to allow it)")
        }
        self.url = url
        self.host = host
        self.port = components.port ?? (scheme == "https" ? 443 : 80)
    }

    /// Where an attempt connects.
    enum Destination: Sendable, Equatable {
        /// To the URL's host as the system resolves it (a listed host, or an address literal checked already).
        case asResolved
        /// To this address, checked public: the connection is pinned to it, so a name that resolves differently a
        /// moment later (DNS rebinding) cannot point the attempt elsewhere.
        case pinned(String)
        /// Not at all: the host resolves to a non-public address and is not listed.
        case refused(String)
    }

    /// The longest a name may take to resolve.
    static let resolveTimeout: Duration = .seconds(5)

    /// Where to connect now: the host is resolved (at most ``resolveTimeout``) and refused when any of its addresses
    /// is non-public, unless it is listed. Throws when it cannot be resolved.
    func destination(configuration: WebhookConfiguration) async throws -> Destination {
        guard !configuration.isListed(host: host) else { return .asResolved }
        var literal = in6_addr()
        var literal4 = in_addr()
        if inet_pton(AF_INET, host, &literal4) == 1 || inet_pton(AF_INET6, host, &literal) == 1 {
            return .asResolved  // an address literal, judged public when the URL was read
        }
        let addresses = try await withThrowingTaskGroup(of: [String].self) { group in
            group.addTask { try await OutboundAddresses.resolve(host, port: port) }
            group.addTask {
                try await Task.sleep(for: Self.resolveTimeout)
                throw OutboundAddressError("resolving '\(host)' took longer than \(Self.resolveTimeout)")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
        if let address = addresses.first(where: OutboundAddresses.isNonPublic) {
            return .refused("host '\(host)' resolves to a non-public address (\(address))")
        }
        guard let first = addresses.first else { throw OutboundAddressError("'\(host)' resolves to no address") }
        return .pinned(first)
    }
}

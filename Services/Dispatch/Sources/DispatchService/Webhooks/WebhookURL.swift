import Foundation

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

    /// Why the host may not be contacted now: it resolves to a non-public address and is not listed (`nil`: it may).
    /// Throws when it cannot be resolved.
    func refusal(configuration: WebhookConfiguration) async throws -> String? {
        guard !configuration.isListed(host: host) else { return nil }
        let addresses = try await OutboundAddresses.resolve(host, port: port)
        guard let address = addresses.first(where: OutboundAddresses.isNonPublic) else { return nil }
        return "host '\(host)' resolves to a non-public address (\(address))"
    }
}

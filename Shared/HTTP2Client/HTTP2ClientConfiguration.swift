/// Settings of an ``HTTP2Client``: timeouts, trust and limits.
public struct HTTP2ClientConfiguration: Sendable {
    /// How long opening the TCP connection (and the TLS handshake) may take.
    public var connectTimeout: Duration
    /// How long a buffered request may take from start to finished response, connecting included;
    /// for a streamed response, how long until the response head arrives. A request's own `timeout` wins.
    public var requestTimeout: Duration
    /// A PEM file of CA certificates to trust for `https` peers; `nil` trusts the system store.
    public var trustRootsPEMFile: String?
    /// The largest buffered response body accepted; larger ones fail with ``HTTP2ClientError/responseTooLarge``.
    public var maxResponseBytes: Int

    public init(
        connectTimeout: Duration = .seconds(5),
        requestTimeout: Duration = .seconds(15),
        trustRootsPEMFile: String? = nil,
        maxResponseBytes: Int = 8 << 20
    ) {
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.trustRootsPEMFile = trustRootsPEMFile
        self.maxResponseBytes = maxResponseBytes
    }
}

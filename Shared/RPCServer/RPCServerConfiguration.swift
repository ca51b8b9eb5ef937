import HTTP2Core

/// Where and how a SecurePush service listens.
public struct RPCServerConfiguration: Sendable {
    /// The address to bind, e.g. `127.0.0.1` or `0.0.0.0`.
    public var host: String
    /// The port to bind; `0` picks a free one (tests).
    public var port: Int
    /// With a certificate, TLS with ALPN `h2` and `http/1.1`; without, cleartext HTTP/2 with prior knowledge and
    /// HTTP/1.1, told apart by the first bytes.
    public var tls: TLSFiles?
    /// Largest request body accepted on `POST /rpc`; larger ones get HTTP 413.
    public var maxBodyBytes: Int
    /// Most calls a batch may hold.
    public var maxBatchLength: Int
    /// A connection without a request in flight for this long is asked to go away (GOAWAY), then closed.
    public var idleTimeout: Duration
    /// A new connection that has not started a request after this long (TLS and HTTP/2 handshakes included) is closed.
    public var handshakeTimeout: Duration
    /// On graceful shutdown, longest in-flight requests may run before their connections are closed; the process
    /// exits within this time whatever clients do.
    public var shutdownTimeout: Duration
    /// Proxies whose forwarding header names the client (`SECUREPUSH_TRUSTED_PROXIES`).
    public var trustedProxies: [IPNetwork] = []
    /// The one forwarding header read from trusted proxies (`SECUREPUSH_FORWARDED_HEADER`, `x-forwarded-for`).
    public var forwardedHeader: ClientAddressResolver.Header = .xForwardedFor
    /// Longest a client may take to send one request, HEADERS to END_STREAM (`SECUREPUSH_REQUEST_TIMEOUT`, 10 s).
    public var requestTimeout: Duration = .seconds(10)
    /// Request bytes one connection may buffer while they arrive (`SECUREPUSH_MAX_CONNECTION_BUFFER_BYTES`,
    /// 2 × ``maxBodyBytes``).
    public var maxConnectionBufferBytes: Int? = nil
    /// The HPACK table a client may keep on a connection once it holds a streaming response
    /// (`SECUREPUSH_STREAMING_HEADER_TABLE_BYTES`, 0; see ``HTTP2Limits/streamingHeaderTableBytes``).
    public var streamingHeaderTableBytes = 0
    /// Most connections open at once (`SECUREPUSH_MAX_CONNECTIONS`, 16,000).
    public var maxConnections = 16_000
    /// Most connections open at once from one address, IPv6 per /64; trusted proxies are exempt
    /// (`SECUREPUSH_MAX_CONNECTIONS_PER_ADDRESS`, 512).
    public var maxConnectionsPerAddress = 512
    /// A second, plain HTTP/1.1 port serving only `GET /metrics` (`SECUREPUSH_METRICS_PORT`); `nil` serves
    /// `GET /metrics` on the service port.
    public var metricsPort: Int? = nil
    /// Whether the service records metrics and serves `GET /metrics` (`SECUREPUSH_METRICS`, `on` by default); off, it
    /// installs no metrics backend and does no metric work per request (``ServiceMetrics/serving(_:)``).
    public var metricsEnabled = true
    /// The browser origins whose pages may read this service's answers (`SECUREPUSH_CORS_ORIGINS`); none by default.
    public var cors = CORSPolicy.none

    public init(
        host: String = "127.0.0.1", port: Int, tls: TLSFiles? = nil, maxBodyBytes: Int = 1 << 20,
        maxBatchLength: Int = 100, idleTimeout: Duration = .seconds(120), handshakeTimeout: Duration = .seconds(10),
        shutdownTimeout: Duration = .seconds(10)
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.maxBodyBytes = maxBodyBytes
        self.maxBatchLength = maxBatchLength
        self.idleTimeout = idleTimeout
        self.handshakeTimeout = handshakeTimeout
        self.shutdownTimeout = shutdownTimeout
    }

    /// PEM files of a server certificate chain and its private key.
    public struct TLSFiles: Sendable, Hashable {
        public var certificateChainPath: String
        public var privateKeyPath: String
        public init(certificateChainPath: String, privateKeyPath: String) {
            self.certificateChainPath = certificateChainPath
            self.privateKeyPath = privateKeyPath
        }
    }

    /// The per-connection limits the HTTP/2 core enforces for this configuration.
    public var limits: HTTP2Limits {
        var limits = HTTP2Limits()
        limits.maxBodyBytes = maxBodyBytes
        limits.idleTimeout = idleTimeout
        limits.handshakeTimeout = handshakeTimeout
        limits.requestTimeout = requestTimeout
        limits.maxConnectionBufferBytes = maxConnectionBufferBytes ?? 2 * maxBodyBytes
        limits.streamingHeaderTableBytes = streamingHeaderTableBytes
        return limits
    }

    /// `https` with TLS, `http` without.
    public var scheme: String { tls == nil ? "http" : "https" }
}

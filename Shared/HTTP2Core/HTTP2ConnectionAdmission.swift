import NIOCore

/// Which connections a server accepts: at most ``maxConnections`` in all and ``maxConnectionsPerAddress`` from one
/// client address (IPv4 per address, IPv6 per /64, the prefix one subscriber usually holds). A refused connection is
/// closed as it is accepted, before TLS or any byte is read.
public struct HTTP2ConnectionAdmission: Sendable {
    /// Why a connection was refused (the `reason` label of `securepush_connections_refused_total`).
    public enum Refusal: String, Sendable, CaseIterable, Error {
        /// The server holds ``HTTP2ConnectionAdmission/maxConnections`` already.
        case total
        /// Its address holds ``HTTP2ConnectionAdmission/maxConnectionsPerAddress`` already.
        case perAddress = "per_address"
    }

    /// Most connections open at once (each costs a descriptor: the process's open-file limit bounds this).
    public var maxConnections: Int
    /// Most connections open at once from one address (or IPv6 /64).
    public var maxConnectionsPerAddress: Int
    /// Peers the per-address limit does not apply to (trusted proxies, whose connections carry many clients).
    public var isExempt: @Sendable (SocketAddress) -> Bool
    /// Called for every refused connection (a metric).
    public var onRefused: @Sendable (Refusal) -> Void

    /// 16,000 connections in all, 512 per address, nobody exempt.
    public init(
        maxConnections: Int = 16_000, maxConnectionsPerAddress: Int = 512,
        isExempt: @escaping @Sendable (SocketAddress) -> Bool = { _ in false },
        onRefused: @escaping @Sendable (Refusal) -> Void = { _ in }
    ) {
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.isExempt = isExempt
        self.onRefused = onRefused
    }
}

/// The part of a peer's address its connections are counted under: the IPv4 address, or an IPv6 address's /64
/// (an IPv4-mapped IPv6 address counts as the IPv4 address it is).
struct PeerAddressKey: Hashable, Sendable {
    private let high: UInt64
    private let low: UInt64

    init?(_ address: SocketAddress?) {
        switch address {
        case .v4(let v4)?:
            high = 0
            low = UInt64(UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6)?:
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
                high = 0
                low = bytes[12...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            } else {
                high = 1
                low = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            }
        default:
            return nil
        }
    }
}

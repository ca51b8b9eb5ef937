import RPCServer

/// The key a rate limit counts a client address under.
public enum AddressLabel {
    /// The address itself for IPv4; for IPv6 its /64 (one host usually holds a whole /64, so counting single addresses
    /// would let it rotate through billions of them); `in-process` for calls that came with no address.
    public static func of(_ address: String?) -> String {
        guard let address else { return "in-process" }
        if address.contains(":"), let network = IPNetwork(address + "/64") { return network.description }
        return address
    }
}

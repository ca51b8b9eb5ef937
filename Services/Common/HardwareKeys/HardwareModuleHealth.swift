import JSONRPC
import PKCS11

/// The `hsm` check of `GET /health`: present only when the service keeps a key in a PKCS#11 module.
public enum HardwareModuleHealth {
    /// `["hsm": "ok"]`, `["hsm": <reason>]` (the service answers 503) for the service's keys in a module, or
    /// nothing when none is in one.
    public static func checks(_ probes: [HardwareKeyProbe?]) async -> [String: String] {
        let probes = probes.compactMap { $0 }
        guard !probes.isEmpty else { return [:] }
        for probe in probes {
            let answer = await probe.readiness()
            if answer != "ok" { return ["hsm": answer] }
        }
        return ["hsm": "ok"]
    }
}

/// A key in a PKCS#11 module failed at run time: `-32050` naming `hsm`, never a fallback to another key.
public struct HardwareModuleUnavailable: Error, RPCErrorConvertible, CustomStringConvertible {
    /// What the module answered, e.g. `C_SignInit failed: CKR_OBJECT_HANDLE_INVALID`.
    public let reason: String

    public init(_ error: PKCS11Error) {
        self.reason = error.description
    }

    public var rpcError: RPCError { .unavailable("hsm", reason) }
    public var description: String { "hsm: \(reason)" }
}

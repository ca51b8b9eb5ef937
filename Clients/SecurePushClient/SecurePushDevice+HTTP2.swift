import Foundation
import HTTP2Client
import Logging
@_exported import SecurePushDeviceCore

extension SecurePushDevice {
    /// A device on our HTTP/2 client (``HTTP2DeviceTransport``).
    /// - Parameters:
    ///   - endpoints: where the services are.
    ///   - session: a session kept from an earlier run, if any.
    ///   - configuration: timeouts; its `trustRootsPEMFile` is replaced by `endpoints.caFile` when that is set.
    ///   - now: the clock the access token's expiry is judged by.
    public init(
        endpoints: SecurePushEndpoints,
        session: DeviceSession? = nil,
        configuration: HTTP2ClientConfiguration = .init(),
        logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws {
        self.init(
            transport: try HTTP2DeviceTransport(endpoints: endpoints, configuration: configuration, logger: logger),
            session: session, logger: logger, now: now)
    }
}

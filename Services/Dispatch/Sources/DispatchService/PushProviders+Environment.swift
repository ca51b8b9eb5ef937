import Logging
import ServiceCore

extension PushProviders {
    /// The remote providers configured by `SECUREPUSH_*` variables, for `buildDispatchApplication(providers:)`.
    ///
    /// This is the one place providers are added: each provider whose `<X>Configuration.fromEnvironment(_:)` returns a
    /// configuration is created here; an unconfigured provider is left out, so `devices.register` refuses its
    /// platform. Throws `ConfigurationError` for a half-configured or invalid provider, after shutting down the ones
    /// already created (their HTTP clients must be closed). Each returned provider is shut down by its delivery worker
    /// when the service stops.
    public static func remoteProviders(environment: ServiceEnvironment, logger: Logger) async throws
        -> [any RemotePushProvider]
    {
        var providers: [any RemotePushProvider] = []
        do {
            if let configuration = try APNsConfiguration.fromEnvironment(environment) {
                providers.append(try APNsProvider(configuration: configuration, logger: logger))
            }
            if let configuration = try FCMConfiguration.fromEnvironment(environment) {
                providers.append(try FCMProvider(configuration: configuration, logger: logger))
            }
            if let configuration = try WNSConfiguration.fromEnvironment(environment) {
                providers.append(try WNSProvider(configuration: configuration, logger: logger))
            }
            if let configuration = try WebPushConfiguration.fromEnvironment(environment) {
                providers.append(try WebPushProvider(configuration: configuration, logger: logger))
            }
        } catch {
            for provider in providers { await provider.shutdown() }
            throw error
        }
        return providers
    }

    /// Builds an app's providers from its credentials (issue 27), with the deployment's connection settings
    /// (`SECUREPUSH_APNS_URL`, `SECUREPUSH_FCM_URL`, CA files…). Throws `ConfigurationError` naming the credential
    /// field that is wrong, after shutting down the providers already created.
    public static func appProviderFactory(environment: ServiceEnvironment, logger: Logger)
        -> AppCatalogLoader.ProviderFactory
    {
        { credentials in
            var providers: [any RemotePushProvider] = []
            do {
                if let apns = credentials.apns {
                    providers.append(
                        try APNsProvider(
                            configuration: .forApp(apns, environment: environment), logger: logger))
                }
                if let fcm = credentials.fcm {
                    providers.append(
                        try FCMProvider(configuration: .forApp(fcm, environment: environment), logger: logger))
                }
                if let wns = credentials.wns {
                    providers.append(
                        try WNSProvider(configuration: .forApp(wns, environment: environment), logger: logger))
                }
                if let webPush = credentials.webPush {
                    providers.append(
                        try WebPushProvider(
                            configuration: .forApp(webPush, environment: environment), logger: logger))
                }
            } catch {
                for provider in providers { await provider.shutdown() }
                throw error
            }
            return providers
        }
    }
}

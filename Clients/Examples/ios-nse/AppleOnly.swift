// The few lines only Apple platforms have. NOT compiled here (Linux): everything they call is in this target's other
// files, which are compiled and tested on Linux (Tests/APNsProviderTests/NotificationServiceExampleTests.swift).
#if canImport(UserNotifications) && canImport(UIKit)
    import Foundation
    import SecurePushDeviceCore
    import SecurePushURLSession
    import UIKit
    import UserNotifications

    /// The values of your deployment and your app (change them).
    enum ExampleConfiguration {
        static let appGroup = "group.com.bank.retail"
        static let keychainGroup = "TEAMID1234.com.bank.retail.shared"
        static let auth = URL(string: "https://auth.bank.example")!
        static let store = URL(string: "https://store.bank.example")!
        static let dispatch = URL(string: "https://push.bank.example")!

        static var state: ExampleSharedStateFile {
            ExampleSharedStateFile(
                directory: FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup)!)
        }
        static var keys: KeychainDeviceKeyStore { KeychainDeviceKeyStore(accessGroup: keychainGroup) }
        static func transport() -> URLSessionTransport {
            URLSessionTransport(auth: auth, store: store, dispatch: dispatch)
        }
    }

    /// UserNotifications' handler and content are not Sendable: they cross into the task once, and only it uses them.
    private struct Handed<Value>: @unchecked Sendable { let value: Value }

    /// The Notification Service Extension target's principal class.
    final class NotificationService: UNNotificationServiceExtension {
        private var task: Task<Void, Never>?

        override func didReceive(
            _ request: UNNotificationRequest,
            withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
        ) {
            let handed = Handed(
                value: (
                    request.content.userInfo, request.content.mutableCopy() as! UNMutableNotificationContent,
                    contentHandler
                ))
            task = Task {
                let (userInfo, content, handler) = handed.value
                let resolved = await ExampleExtension.resolve(
                    userInfo: userInfo, state: ExampleConfiguration.state, keys: ExampleConfiguration.keys,
                    transport: ExampleConfiguration.transport())
                if let title = resolved.title { content.title = title }
                content.body = resolved.body
                handler(content)
            }
        }

        /// iOS's own deadline: `resolve` answers at once with the generic text, which the task then shows.
        override func serviceExtensionTimeWillExpire() {
            task?.cancel()
        }
    }

    /// In the app: ask to show alerts, then, once signed in, register for remote notifications and hand the token to
    /// ``ExampleApp``.
    final class AppDelegate: NSObject, UIApplicationDelegate {
        private var secure: ExampleApp?

        func application(
            _ application: UIApplication, didFinishLaunchingWithOptions options: [UIApplication.LaunchOptionsKey: Any]?
        ) -> Bool {
            UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .sound]) { _, _ in }
            return true
        }

        /// Call once the person signed in (`device.signIn` on your sign-in screen).
        func signedIn(_ device: SecurePushDevice) async {
            secure = await ExampleApp(
                device: device, keys: ExampleConfiguration.keys, state: ExampleConfiguration.state)
            UIApplication.shared.registerForRemoteNotifications()
        }

        func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken token: Data) {
            guard let secure else { return }
            Task { _ = try? await secure.didRegisterForRemoteNotifications(deviceToken: token) }
        }
    }
#endif

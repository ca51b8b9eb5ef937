import Crypto
import DispatchService
import Foundation
import PKCS11
import ServiceCore
import SoftHSMFixture
import TestSupport
import Testing

@Suite("The apps key file wrapped by a key in a PKCS#11 module (SoftHSM2)")
struct AppsKeyWrappingTests {
    @Test(
        "turning the module on wraps the apps' keys in place; a VAPID key sealed before still opens; without the module nothing does"
    )
    func vapidKeysThroughWrappedAppsKey() throws {
        let (hsm, token) = try SoftHSM.sharedToken()
        let label = SoftHSM.uniqueLabel("apps-wrap")
        _ = try token.generateAESKey(label: label)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("apps-keys")

        // An app created before the module: its VAPID key sealed under the key file's key in clear.
        let plain = try AppsKeySource.generatedFile(path).sealerCreatingKey(now: Date())
        let vapid = P256.Signing.PrivateKey()
        let credentials = AppCredentials(
            webPush: .init(vapidPrivateKey: vapid.pemRepresentation, subject: "mailto:push@bank.example"))
        let sealed = try plain.seal(credentials, appID: "retail-web")
        let keyInClear = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").last {
            !$0.hasPrefix("#")
        }

        let environment = ServiceEnvironment(
            hsm.environment.merging([
                "SECUREPUSH_APPS_KEY_FILE": path, "SECUREPUSH_APPS_KEY_WRAPPING_KEY": hsm.uri(label),
            ]) { _, new in new })
        let source = try AppsKeySource.fromEnvironment(environment)
        let sealer = try #require(try source.sealer())
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains(try #require(keyInClear)))
        #expect(text.contains(" wrapped:"))
        #expect(try sealer.open(sealed, appID: "retail-web").webPush?.vapidPrivateKey == vapid.pemRepresentation)
        #expect(source.wrapping?.token === token)

        #expect {
            try AppsKeySource.file(path).sealer()
        } throws: {
            String(describing: $0).contains("set SECUREPUSH_APPS_KEY_WRAPPING_KEY")
        }
    }
}

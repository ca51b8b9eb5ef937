import Foundation
import PKCS11
import SecurePushClient
import SharedModels
import SoftHSMFixture
import TestSupport
import Testing

/// The stack `securepush up` runs (one process, three services) with every key it can keep in a module in SoftHSM2.
@Suite("securepush up with its keys in a PKCS#11 module")
struct HardwareModuleStackTests {
    @Test(
        "a send and a fetch with the signing, audit, store and apps keys in one token: three services share one module and login"
    )
    func stackOnModule() async throws {
        let (hsm, token) = try SoftHSM.sharedToken()
        let signing = SoftHSM.uniqueLabel("up-signing")
        let audit = SoftHSM.uniqueLabel("up-audit")
        let storeWrap = SoftHSM.uniqueLabel("up-store")
        let appsWrap = SoftHSM.uniqueLabel("up-apps")
        _ = try token.generateECKeyPair(label: signing)
        _ = try token.generateECKeyPair(label: audit)
        _ = try token.generateAESKey(label: storeWrap)
        _ = try token.generateAESKey(label: appsWrap)
        let extra = hsm.environment.merging([
            "SECUREPUSH_AUTH_SIGNING_KEY": hsm.uri(signing), "SECUREPUSH_AUDIT_KEY": hsm.uri(audit),
            "SECUREPUSH_STORE_KEY_WRAPPING_KEY": hsm.uri(storeWrap),
            "SECUREPUSH_APPS_KEY_WRAPPING_KEY": hsm.uri(appsWrap),
        ]) { _, new in new }
        try await TestStack.with(.cleartext, extra: extra) { stack in
            let (device, userId) = try await stack.signedInDevice()
            let backend = try stack.backend()
            let sent = try await backend.send(.init(recipientId: userId, payload: "statement ready"))
            #expect(try await device.fetch(sent.notificationId).payload == "statement ready")
            await backend.shutdown()
            await device.shutdown()

            // The store's key file holds its key wrapped, never in clear.
            let keys = try String(contentsOfFile: stack.dataDirectory + "/store-keys", encoding: .utf8)
            #expect(keys.contains(" wrapped:"))
            for url in [stack.endpoints.auth, stack.endpoints.store, stack.endpoints.dispatch] {
                let health = try await Curl.run(["--http2-prior-knowledge", "\(url)/health"])
                #expect(health.status == 200, "\(url): \(health.body)")
                #expect(health.body.contains(#""hsm":"ok""#), "\(url): \(health.body)")
            }
            let metrics = try await Curl.run(["--http2-prior-knowledge", "\(stack.endpoints.auth)/metrics"]).body
            let signatures = metrics.split(separator: "\n").first {
                $0.hasPrefix("securepush_hsm_operations_total") && $0.contains(#"operation="sign""#)
                    && $0.contains(#"outcome="ok""#)
            }
            #expect(signatures != nil, "\(metrics.prefix(2000))")
        }
    }
}

import Foundation
import SharedModels

/// The JSON body of an APNs request: the notification id, plus the operator's fallback text in alert mode.
///
/// Encoded with sorted keys, so the bytes are stable (tests pin them). The payload itself never goes here.
struct APNsPayload: Encodable, Sendable {
    /// APNs refuses larger bodies with `413 PayloadTooLarge`.
    static let maxBytes = 4096

    struct Alert: Encodable, Sendable {
        var title: String
        var body: String
    }

    struct APS: Encodable, Sendable {
        var alert: Alert?
        var contentAvailable: Int?
        var mutableContent: Int?

        enum CodingKeys: String, CodingKey {
            case alert
            case contentAvailable = "content-available"
            case mutableContent = "mutable-content"
        }
    }

    var aps: APS
    /// The notification id; absent from a challenge.
    var secureId: String?
    /// The send's W3C trace context, when it was traced (the app passes it to `store.get`); absent otherwise.
    var traceparent: String?
    /// A device-verification challenge (``DeviceVerification``), pushed in the background; absent otherwise.
    var securepushChallenge: String?
    /// The pending device the challenge is for; absent otherwise.
    var securepushDeviceId: String?

    /// A background push carrying only a device-verification challenge and its pending device's id: nothing is
    /// shown to the person holding the device.
    init(challenge: String, deviceID: String) {
        aps = APS(contentAvailable: 1)
        securepushChallenge = challenge
        securepushDeviceId = deviceID
    }

    /// The payload for `notificationID` in `mode`; `alertTitle` and `alertBody` are used in alert mode only.
    init(
        notificationID: String, mode: APNsPushMode, alertTitle: String, alertBody: String,
        traceParent: TraceParent? = nil
    ) {
        switch mode {
        case .alert:
            aps = APS(alert: Alert(title: alertTitle, body: alertBody), mutableContent: 1)
        case .background:
            aps = APS(contentAvailable: 1)
        }
        secureId = notificationID
        traceparent = traceParent?.description
    }

    /// The JSON bytes, keys sorted.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, integers and optionals only: encoding cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }
}

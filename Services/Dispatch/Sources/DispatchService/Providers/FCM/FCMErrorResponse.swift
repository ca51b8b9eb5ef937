/// FCM's error body: a Google API `Status` whose details may hold an `FcmError` with the FCM error code.
///
/// `{"error":{"code":404,"message":"…","status":"NOT_FOUND","details":[{"@type":
/// "type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}`
struct FCMErrorResponse: Decodable, Sendable {
    struct Status: Decodable, Sendable {
        var code: Int?
        var message: String?
        var status: String?
        var details: [Detail]?
    }

    struct Detail: Decodable, Sendable {
        var type: String?
        var errorCode: String?

        enum CodingKeys: String, CodingKey {
            case type = "@type"
            case errorCode
        }
    }

    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"

    var error: Status

    /// The FCM error code (`UNREGISTERED`, `QUOTA_EXCEEDED`, …) from the `FcmError` detail, if there is one.
    var fcmErrorCode: String? {
        error.details?.first { $0.type == Self.fcmErrorType && $0.errorCode != nil }?.errorCode
    }
}

import CNGHTTP2

/// The small helpers both nghttp2 sessions (the server's ``HTTP2ConnectionHandler`` and the client's
/// ``HTTP2ClientSession``) build on, written once.
enum NGHTTP2Session {
    /// One SETTINGS entry; the value is clamped to the 32 bits the frame carries.
    static func setting(_ id: nghttp2_settings_id, _ value: Int) -> nghttp2_settings_entry {
        nghttp2_settings_entry(settings_id: Int32(id.rawValue), value: UInt32(clamping: value))
    }

    /// Throws the nghttp2 error of a nonzero return code.
    static func check(_ code: Int32) throws {
        if code != 0 { throw HTTP2ConnectionHandler.SessionError(code: code) }
    }

    /// Whether `frame` is a HEADERS frame.
    static func isHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Bool {
        frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue)
    }
}

import Foundation

/// One file of the browser SDK or the web inbox, embedded in the binary (see `Clients/Web/generate-assets.py`).
public struct WebAsset: Sendable {
    /// How the file is embedded: as its text, or base64 for anything else.
    public enum Content: Sendable {
        case text(String)
        case base64(String)
    }

    /// The `Content-Type` it is served with.
    public let contentType: String
    /// A strong ETag: a digest of the bytes.
    public let etag: String
    /// The file's bytes.
    public let bytes: [UInt8]

    init(contentType: String, etag: String, content: Content) {
        self.contentType = contentType
        self.etag = etag
        switch content {
        case .text(let text):
            bytes = Array(text.utf8)
        case .base64(let encoded):
            bytes = Array(Data(base64Encoded: encoded) ?? Data())
        }
    }
}

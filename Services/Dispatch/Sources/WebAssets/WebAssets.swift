/// The browser SDK (`/sdk/…`) and the web inbox (`/inbox/…`) as push-dispatch serves them: the files of
/// `Clients/Web/sdk` and `Clients/Web/inbox`, generated into `WebAssets+Files.swift`.
public enum WebAssets {
    /// The file served at `path` (`/sdk/securepush.js`), if any.
    public static func file(at path: String) -> WebAsset? { files[path] }

    /// Every path served, sorted.
    public static var paths: [String] { files.keys.sorted() }
}

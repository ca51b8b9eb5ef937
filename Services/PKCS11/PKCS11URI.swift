/// A PKCS#11 URI (RFC 7512) naming a key: `pkcs11:token=securepush;object=auth-signing`.
///
/// Tokens are named by label (`token=`), never by slot number: slot ids change when tokens are added (SoftHSM2
/// numbers them at random). The key is named by `object=` (its `CKA_LABEL`) and/or `id=` (its `CKA_ID`, percent-encoded
/// bytes). `type=` may say which kind of object is meant; `module-path=` in the query overrides
/// `SECUREPUSH_PKCS11_MODULE`. `serial=`, `manufacturer=` and `model=` narrow the token; the other standard attributes
/// (`library-*`, `slot-*`) are accepted and narrow nothing; `pin-value` is refused (a PIN does not belong in a setting others can read: use
/// `SECUREPUSH_PKCS11_PIN_FILE` or `pin-source`).
public struct PKCS11URI: Sendable, Hashable, CustomStringConvertible {
    /// The token's label.
    public let token: String
    /// The object's label, if named.
    public let object: String?
    /// The object's `CKA_ID`, if named.
    public let id: [UInt8]?
    /// `type=`: `private`, `public`, `secret-key`, `cert` or `data`, if given.
    public let type: String?
    /// `serial=`, `manufacturer=`, `model=`: narrow the token when given (two tokens of one label are told apart).
    public let serial: String?
    public let manufacturer: String?
    public let model: String?
    /// `module-path=` from the query, if given.
    public let modulePath: String?
    /// `pin-source=` from the query (a file path, or a `file:` URI's path), if given.
    public let pinSource: String?
    /// The URI as written.
    public let description: String

    /// Whether `text` is meant as a PKCS#11 URI rather than a file path.
    public static func isURI(_ text: String) -> Bool { text.hasPrefix("pkcs11:") }

    private static let pathAttributes: Set<String> = [
        "token", "object", "id", "type", "serial", "manufacturer", "model", "library-manufacturer",
        "library-description", "library-version", "slot-manufacturer", "slot-description", "slot-id",
    ]
    private static let types: Set<String> = ["private", "public", "secret-key", "cert", "data"]

    /// The URI of the object labelled `object` in the token labelled `token`.
    public init(token: String, object: String) {
        self.token = token
        self.object = object
        self.id = nil
        self.type = nil
        self.serial = nil
        self.manufacturer = nil
        self.model = nil
        self.modulePath = nil
        self.pinSource = nil
        self.description = "pkcs11:token=\(Self.percentEncoded(token));object=\(Self.percentEncoded(object))"
    }

    /// Parses `text`; throws ``PKCS11URIError`` saying what is wrong.
    public init(_ text: String) throws(PKCS11URIError) {
        guard Self.isURI(text) else { throw PKCS11URIError("it does not start with 'pkcs11:'") }
        let rest = text.dropFirst("pkcs11:".count)
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var path: [String: [UInt8]] = [:]
        for component in parts[0].split(separator: ";") {
            let (name, value) = try Self.attribute(component)
            guard Self.pathAttributes.contains(name) || name.hasPrefix("x-") else {
                throw PKCS11URIError("unknown attribute '\(name)'")
            }
            guard path[name] == nil else { throw PKCS11URIError("'\(name)' is given twice") }
            path[name] = value
        }
        var query: [String: [UInt8]] = [:]
        if parts.count == 2 {
            for component in parts[1].split(separator: "&") {
                let (name, value) = try Self.attribute(component)
                switch name {
                case "pin-value":
                    throw PKCS11URIError(
                        "'pin-value' puts the PIN in the setting: use SECUREPUSH_PKCS11_PIN_FILE or 'pin-source'")
                case "pin-source", "module-path":
                    guard query[name] == nil else { throw PKCS11URIError("'\(name)' is given twice") }
                    query[name] = value
                case "module-name":
                    throw PKCS11URIError("'module-name' is not supported: give the module's path ('module-path')")
                default:
                    guard name.hasPrefix("x-") else { throw PKCS11URIError("unknown query attribute '\(name)'") }
                }
            }
        }
        guard let token = path["token"].flatMap(Self.text), !token.isEmpty else {
            throw PKCS11URIError("it names no token: add 'token=<label>' (a slot number is not accepted)")
        }
        let object = path["object"].flatMap(Self.text)
        let id = path["id"]
        guard object != nil || id != nil else {
            throw PKCS11URIError("it names no key: add 'object=<label>' or 'id=<bytes>'")
        }
        let type = path["type"].flatMap(Self.text)
        if let type, !Self.types.contains(type) {
            throw PKCS11URIError("'type=\(type)' is not one of private, public, secret-key, cert, data")
        }
        self.token = token
        self.object = object
        self.id = id
        self.type = type
        self.serial = path["serial"].flatMap(Self.text)
        self.manufacturer = path["manufacturer"].flatMap(Self.text)
        self.model = path["model"].flatMap(Self.text)
        self.modulePath = query["module-path"].flatMap(Self.text)
        if let source = query["pin-source"].flatMap(Self.text) {
            // `file:///run/pin` and `file:/run/pin` name a local file; `file://host/…` does not.
            if source.hasPrefix("file://") {
                let rest = source.dropFirst("file://".count)
                guard rest.hasPrefix("/") else {
                    throw PKCS11URIError("'pin-source' must be a local file ('file:///path' or a path)")
                }
                self.pinSource = String(rest)
            } else {
                self.pinSource = source.hasPrefix("file:") ? String(source.dropFirst("file:".count)) : source
            }
        } else {
            self.pinSource = nil
        }
        self.description = text
    }

    private static func attribute(_ component: Substring) throws(PKCS11URIError) -> (String, [UInt8]) {
        guard let equals = component.firstIndex(of: "=") else {
            throw PKCS11URIError("'\(component)' is not 'name=value'")
        }
        let name = String(component[..<equals])
        guard let value = percentDecoded(component[component.index(after: equals)...]) else {
            throw PKCS11URIError("the value of '\(name)' has a malformed percent-encoding")
        }
        return (name, value)
    }

    private static func percentDecoded(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next().flatMap(hexValue), let low = utf8.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// `text` with every byte outside RFC 7512's unreserved characters percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        let digits = Array("0123456789ABCDEF")
        var encoded = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if scalar.properties.isASCIIHexDigit || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || "-._~".unicodeScalars.contains(scalar)
            {
                encoded.unicodeScalars.append(scalar)
            } else {
                encoded += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
            }
        }
        return encoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func text(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }
}

/// A malformed PKCS#11 URI: what is wrong with it.
public struct PKCS11URIError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

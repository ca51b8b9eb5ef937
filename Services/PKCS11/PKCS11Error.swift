internal import CPKCS11

/// A PKCS#11 call that failed: which call, and the module's return value (`CKR_…`).
///
/// Messages name the call and the code, never a PIN, a key or data.
public struct PKCS11Error: Error, Sendable, CustomStringConvertible {
    /// The call that failed, e.g. `C_Sign`, or what was being done, e.g. `find key`.
    public let operation: String
    /// The module's return value; `nil` for failures that are not a module's code (a missing object, say).
    public let code: UInt?
    /// What went wrong, when it is not said by `code`.
    public let reason: String?
    /// Whether a search found no object where one was meant (``PKCS11Token`` logs in again and tries once more: a
    /// session that lost its login sees no private object).
    let isMissingKey: Bool

    init(_ operation: String, code: UInt) {
        self.operation = operation
        self.code = code
        self.reason = nil
        self.isMissingKey = false
    }

    init(_ operation: String, reason: String) {
        self.operation = operation
        self.code = nil
        self.reason = reason
        self.isMissingKey = false
    }

    /// A `find key` failure: no object in the token matches the key `reason` names (an ambiguous or mismatched one is
    /// a plain `find key` failure: logging in again cannot change it).
    init(missingKey reason: String) {
        self.operation = "find key"
        self.code = nil
        self.reason = reason
        self.isMissingKey = true
    }

    /// The code's name from the PKCS#11 specification, e.g. `CKR_PIN_INCORRECT`, or its hexadecimal value.
    public var codeName: String? { code.map(Self.name(of:)) }

    /// Whether the PIN was refused: incorrect, locked, expired or invalid.
    public var isPINRefused: Bool {
        guard let code else { return false }
        return [CKR_PIN_INCORRECT, CKR_PIN_LOCKED, CKR_PIN_INVALID, CKR_PIN_LEN_RANGE, CKR_PIN_EXPIRED].contains(code)
    }

    public var description: String {
        "\(operation) failed: \(codeName ?? reason ?? "unknown")"
    }

    /// Names of the codes a module answers in practice; others are printed in hexadecimal.
    static func name(of code: UInt) -> String {
        switch code {
        case CKR_OK: "CKR_OK"
        case CKR_CANCEL: "CKR_CANCEL"
        case CKR_HOST_MEMORY: "CKR_HOST_MEMORY"
        case CKR_SLOT_ID_INVALID: "CKR_SLOT_ID_INVALID"
        case CKR_GENERAL_ERROR: "CKR_GENERAL_ERROR"
        case CKR_FUNCTION_FAILED: "CKR_FUNCTION_FAILED"
        case CKR_ARGUMENTS_BAD: "CKR_ARGUMENTS_BAD"
        case CKR_ATTRIBUTE_SENSITIVE: "CKR_ATTRIBUTE_SENSITIVE"
        case CKR_ATTRIBUTE_TYPE_INVALID: "CKR_ATTRIBUTE_TYPE_INVALID"
        case CKR_ATTRIBUTE_VALUE_INVALID: "CKR_ATTRIBUTE_VALUE_INVALID"
        case CKR_DATA_INVALID: "CKR_DATA_INVALID"
        case CKR_DATA_LEN_RANGE: "CKR_DATA_LEN_RANGE"
        case CKR_DEVICE_ERROR: "CKR_DEVICE_ERROR"
        case CKR_DEVICE_MEMORY: "CKR_DEVICE_MEMORY"
        case CKR_DEVICE_REMOVED: "CKR_DEVICE_REMOVED"
        case CKR_ENCRYPTED_DATA_INVALID: "CKR_ENCRYPTED_DATA_INVALID"
        case CKR_ENCRYPTED_DATA_LEN_RANGE: "CKR_ENCRYPTED_DATA_LEN_RANGE"
        case CKR_FUNCTION_NOT_SUPPORTED: "CKR_FUNCTION_NOT_SUPPORTED"
        case CKR_KEY_HANDLE_INVALID: "CKR_KEY_HANDLE_INVALID"
        case CKR_KEY_TYPE_INCONSISTENT: "CKR_KEY_TYPE_INCONSISTENT"
        case CKR_KEY_FUNCTION_NOT_PERMITTED: "CKR_KEY_FUNCTION_NOT_PERMITTED"
        case CKR_MECHANISM_INVALID: "CKR_MECHANISM_INVALID"
        case CKR_MECHANISM_PARAM_INVALID: "CKR_MECHANISM_PARAM_INVALID"
        case CKR_OBJECT_HANDLE_INVALID: "CKR_OBJECT_HANDLE_INVALID"
        case CKR_OPERATION_ACTIVE: "CKR_OPERATION_ACTIVE"
        case CKR_OPERATION_NOT_INITIALIZED: "CKR_OPERATION_NOT_INITIALIZED"
        case CKR_PIN_INCORRECT: "CKR_PIN_INCORRECT"
        case CKR_PIN_INVALID: "CKR_PIN_INVALID"
        case CKR_PIN_LEN_RANGE: "CKR_PIN_LEN_RANGE"
        case CKR_PIN_EXPIRED: "CKR_PIN_EXPIRED"
        case CKR_PIN_LOCKED: "CKR_PIN_LOCKED"
        case CKR_SESSION_CLOSED: "CKR_SESSION_CLOSED"
        case CKR_SESSION_COUNT: "CKR_SESSION_COUNT"
        case CKR_SESSION_HANDLE_INVALID: "CKR_SESSION_HANDLE_INVALID"
        case CKR_SESSION_READ_ONLY: "CKR_SESSION_READ_ONLY"
        case CKR_SIGNATURE_INVALID: "CKR_SIGNATURE_INVALID"
        case CKR_TEMPLATE_INCOMPLETE: "CKR_TEMPLATE_INCOMPLETE"
        case CKR_TEMPLATE_INCONSISTENT: "CKR_TEMPLATE_INCONSISTENT"
        case CKR_TOKEN_NOT_PRESENT: "CKR_TOKEN_NOT_PRESENT"
        case CKR_TOKEN_NOT_RECOGNIZED: "CKR_TOKEN_NOT_RECOGNIZED"
        case CKR_TOKEN_WRITE_PROTECTED: "CKR_TOKEN_WRITE_PROTECTED"
        case CKR_USER_ALREADY_LOGGED_IN: "CKR_USER_ALREADY_LOGGED_IN"
        case CKR_USER_NOT_LOGGED_IN: "CKR_USER_NOT_LOGGED_IN"
        case CKR_USER_PIN_NOT_INITIALIZED: "CKR_USER_PIN_NOT_INITIALIZED"
        case CKR_USER_TYPE_INVALID: "CKR_USER_TYPE_INVALID"
        case CKR_BUFFER_TOO_SMALL: "CKR_BUFFER_TOO_SMALL"
        case CKR_CRYPTOKI_NOT_INITIALIZED: "CKR_CRYPTOKI_NOT_INITIALIZED"
        case CKR_CRYPTOKI_ALREADY_INITIALIZED: "CKR_CRYPTOKI_ALREADY_INITIALIZED"
        default: "CKR 0x" + String(code, radix: 16)
        }
    }
}

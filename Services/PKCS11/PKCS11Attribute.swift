internal import CPKCS11

/// One attribute of an object template (`CK_ATTRIBUTE`): its type and its value's bytes.
struct PKCS11Attribute {
    let type: UInt
    let value: [UInt8]

    init(_ type: UInt, bytes: [UInt8]) {
        self.type = type
        self.value = bytes
    }

    init(_ type: UInt, _ flag: Bool) {
        self.init(type, bytes: [flag ? 1 : 0])
    }

    init(_ type: UInt, ulong: UInt) {
        self.init(type, bytes: withUnsafeBytes(of: ulong) { Array($0) })
    }

    init(_ type: UInt, string: String) {
        self.init(type, bytes: Array(string.utf8))
    }
}

/// Calls `body` with `template` as a contiguous `CK_ATTRIBUTE` array whose values stay valid during the call.
func withTemplate<T>(
    _ template: [PKCS11Attribute],
    _ body: (UnsafeMutablePointer<ck_attribute>?, UInt) throws(PKCS11Error) -> T
) throws(PKCS11Error) -> T {
    // Each value starts on an 8-byte boundary: a module may read a CK_ULONG value (CKA_CLASS…) as one.
    let total = template.reduce(0) { $0 + aligned($1.value.count) }
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(total, 1), alignment: 8)
    let attributes = UnsafeMutablePointer<ck_attribute>.allocate(capacity: max(template.count, 1))
    defer {
        storage.deallocate()
        attributes.deallocate()
    }
    var offset = 0
    for (index, attribute) in template.enumerated() {
        let value = storage.baseAddress! + offset
        attribute.value.withUnsafeBytes { value.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        (attributes + index).initialize(
            to: ck_attribute(type: attribute.type, value: value, value_len: UInt(attribute.value.count)))
        offset += aligned(attribute.value.count)
    }
    return try body(template.isEmpty ? nil : attributes, UInt(template.count))
}

/// `count` rounded up to a multiple of 8.
private func aligned(_ count: Int) -> Int { (count + 7) & ~7 }

/// The one object matching `template`: `missing` when there is none, `ambiguous` when there are more (both the
/// reason of a "find key" error), so no other object can stand in for the one meant.
func findSingleObject(
    session: ck_session_handle_t, functions: UnsafeMutablePointer<ck_function_list>, template: [PKCS11Attribute],
    missing: @autoclosure () -> String, ambiguous: @autoclosure () -> String
) throws(PKCS11Error) -> ck_object_handle_t {
    let handles = try findObjects(session: session, functions: functions, template: template, limit: 2)
    guard let handle = handles.first else { throw PKCS11Error(missingKey: missing()) }
    guard handles.count == 1 else { throw PKCS11Error("find key", reason: ambiguous()) }
    return handle
}

/// The handles of up to `limit` objects matching `template`.
func findObjects(
    session: ck_session_handle_t, functions: UnsafeMutablePointer<ck_function_list>, template: [PKCS11Attribute],
    limit: Int
) throws(PKCS11Error) -> [ck_object_handle_t] {
    try withTemplate(template) { (attributes, count) throws(PKCS11Error) in
        try check("C_FindObjectsInit", functions.pointee.C_FindObjectsInit!(session, attributes, count))
        var handles = [ck_object_handle_t](repeating: 0, count: limit)
        var found: UInt = 0
        let rv = functions.pointee.C_FindObjects!(session, &handles, UInt(limit), &found)
        // Always ended, so the session can search again.
        _ = functions.pointee.C_FindObjectsFinal!(session)
        try check("C_FindObjects", rv)
        return Array(handles.prefix(Int(found)))
    }
}

/// The value of attribute `type` of `object` (its length asked first).
func attributeValue(
    session: ck_session_handle_t, functions: UnsafeMutablePointer<ck_function_list>, object: ck_object_handle_t,
    type: UInt
) throws(PKCS11Error) -> [UInt8] {
    var attribute = ck_attribute(type: type, value: nil, value_len: 0)
    try check("C_GetAttributeValue", functions.pointee.C_GetAttributeValue!(session, object, &attribute, 1))
    let value = UnsafeMutableRawBufferPointer.allocate(byteCount: max(Int(attribute.value_len), 1), alignment: 8)
    defer { value.deallocate() }
    attribute.value = value.baseAddress
    try check("C_GetAttributeValue", functions.pointee.C_GetAttributeValue!(session, object, &attribute, 1))
    return Array(value.prefix(Int(attribute.value_len)))
}

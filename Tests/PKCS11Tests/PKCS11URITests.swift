import PKCS11
import Testing

@Suite("PKCS#11 URIs (RFC 7512)")
struct PKCS11URITests {
    @Test("token and object labels, percent-decoded; id bytes; module-path and pin-source from the query")
    func parses() throws {
        let uri = try PKCS11URI(
            "pkcs11:token=secure%20push;object=auth-signing;id=%01%ff;type=private?module-path=/usr/lib/x.so&pin-source=file:/run/pin"
        )
        #expect(uri.token == "secure push")
        #expect(uri.object == "auth-signing")
        #expect(uri.id == [0x01, 0xFF])
        #expect(uri.type == "private")
        #expect(uri.modulePath == "/usr/lib/x.so")
        #expect(uri.pinSource == "/run/pin")
        #expect(try PKCS11URI(PKCS11URI(token: "a b", object: "c;d").description).object == "c;d")
    }

    @Test(
        "refused, saying why",
        arguments: [
            ("/etc/key.pem", "does not start with 'pkcs11:'"),
            ("pkcs11:object=k", "names no token"),
            ("pkcs11:slot-id=3;object=k", "names no token"),
            ("pkcs11:token=t", "names no key"),
            ("pkcs11:token=t;object=k?pin-value=1234", "'pin-value' puts the PIN in the setting"),
            ("pkcs11:token=t;object=k;colour=red", "unknown attribute 'colour'"),
            ("pkcs11:token=t;object=k%zz", "malformed percent-encoding"),
            ("pkcs11:token=t;token=u;object=k", "'token' is given twice"),
            ("pkcs11:token=t;object=k;type=secret", "is not one of"),
        ])
    func refused(text: String, reason: String) {
        #expect {
            try PKCS11URI(text)
        } throws: { error in
            String(describing: error).contains(reason)
        }
    }
}

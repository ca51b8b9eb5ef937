import JSONRPC
import Testing

@Suite("reading the bearer token from an Authorization header")
struct BearerTokenTests {
    @Test(
        "only the Bearer scheme, in any case, with a non-empty token yields a token",
        arguments: [
            ("Bearer x", "x"),
            ("bearer x", "x"),
            ("BEARER abc.def.ghi", "abc.def.ghi"),
            ("Bearer   spaced  ", "spaced"),
            ("Bearer \tt.o.k\t ", "t.o.k"),
            ("Bearer  \t ", nil),
            ("Basic x", nil),
            ("Bearer", nil),
            ("Bearer ", nil),
            ("Bearerx", nil),
            ("", nil),
        ] as [(String, String?)])
    func parse(header: String, token: String?) {
        #expect(RPCRequestContext.bearerToken(fromAuthorization: header) == token)
    }

    @Test("no header yields no token")
    func missingHeader() {
        #expect(RPCRequestContext.bearerToken(fromAuthorization: nil) == nil)
    }
}

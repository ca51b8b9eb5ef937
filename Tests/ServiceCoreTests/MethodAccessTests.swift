import ServiceCore
import SharedModels
import Testing

/// The access a method declares at registration (`MethodRegistry.register(_:requires:handler:)`).
@Suite("Method access")
struct MethodAccessTests {
    @Test("a token passes when it carries any one of the declared scopes")
    func anyOfTheScopes() throws {
        let access = MethodAccess(anyOf: [Scope.usersRead, Scope.pushSend])
        try access.check(Principal(subject: "push-dispatch", scopes: [Scope.usersRead]))
        try access.check(Principal(subject: "backend", scopes: [Scope.pushSend, "other"]))
    }

    @Test("a token with none of them is -32003 naming the first declared scope")
    func refusalNamesTheFirstScope() {
        let access = MethodAccess(anyOf: [Scope.usersRead, Scope.pushSend])
        let refusal = #expect(throws: RPCError.self) {
            try access.check(Principal(subject: "u1", scopes: [Scope.user]))
        }
        #expect(refusal?.code == RPCErrorCode.forbidden)
        #expect(refusal?.data == .object(["requiredScope": .string(Scope.usersRead)]))
    }

    @Test("`user` admits people's tokens only")
    func userAccess() throws {
        try MethodAccess.user.check(Principal(subject: "u1", scopes: [Scope.user]))
        #expect(throws: RPCError.self) {
            try MethodAccess.user.check(Principal(subject: "backend", scopes: [Scope.pushSend]))
        }
    }
}

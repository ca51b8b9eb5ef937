import Foundation
import Testing

@testable import RPCServer

@Suite("Content-Type of a call")
struct ContentTypeCheckTests {
    @Test("application/json in any case, with parameters; anything shorter, other or non-ASCII is not")
    func isJSON() {
        for type in ["application/json", "APPLICATION/JSON", "Application/Json; charset=utf-8"] {
            #expect(RPCRequestRouter.isJSON(type), "\(type)")
        }
        for type in [
            "", "application/jso", "application/xml", "applicationjson", "text/plain; x=application/json",
            "application/jsön", "ápplication/json",
            // 0x0F | 0x20 is "/": only capital letters may differ from the lowercase form.
            "application\u{0F}json", "APPLICATION\u{0F}JSON",
            "application/json".uppercased().replacingOccurrences(of: "J", with: "Ĵ"),
        ] {
            #expect(!RPCRequestRouter.isJSON(type), "\(type)")
        }
    }
}

import Foundation
import Testing

@testable import RPCServer

@Suite("Content-Type of a call")
struct ContentTypeCheckTests {
    @Test("application/json in any case, with parameters; anything shorter, longer, other or non-ASCII is not")
    func isJSON() {
        for type in [
            "application/json", "APPLICATION/JSON", "Application/Json; charset=utf-8", "application/json;charset=UTF-8",
            "application/json ; charset=utf-8", "application/json\t;x=1", "application/json ",
        ] {
            #expect(RPCRequestRouter.isJSON(type), "\(type)")
        }
        for type in [
            "", "application/jso", "application/xml", "applicationjson", "text/plain; x=application/json",
            "application/jsön", "ápplication/json",
            // A longer subtype is another media type.
            "application/jsonx", "application/json-seq", "application/json5", "application/json+ld",
            "application/json charset=utf-8", "application/json,text/plain", "application/json\u{0}",
            // 0x0F | 0x20 is "/": only capital letters may differ from the lowercase form.
            "application\u{0F}json", "APPLICATION\u{0F}JSON",
            "application/json".uppercased().replacingOccurrences(of: "J", with: "Ĵ"),
        ] {
            #expect(!RPCRequestRouter.isJSON(type), "\(type)")
        }
    }
}

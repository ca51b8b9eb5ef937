import Foundation
import SharedModels
import Testing

@Suite("every method is pinned by fixtures and listed in the catalog")
struct MethodCatalogTests {
    @Test("each method's fixtures survive a decode/encode round trip", arguments: MethodContract.all)
    func roundTrip(contract: MethodContract) throws {
        try contract.roundTripParams("\(contract.fixture).params")
        try contract.roundTripResult("\(contract.fixture).result")
        if contract.minimalParams { try contract.roundTripParams("\(contract.fixture).minimal.params") }
        if contract.minimalResult { try contract.roundTripResult("\(contract.fixture).minimal.result") }
    }

    @Test("each method type's name equals the fixture name it is tested with", arguments: MethodContract.all)
    func nameMatchesFixture(contract: MethodContract) {
        #expect(contract.methodName == contract.fixture)
    }

    @Test("method names are unique")
    func uniqueNames() {
        let names = MethodContract.all.map(\.methodName)
        #expect(Set(names).count == names.count)
    }

    @Test("MethodCatalog lists exactly the methods the services serve; push.notify goes from push-dispatch to devices")
    func catalogMatchesMethodTypes() {
        let catalog = MethodCatalog.auth.union(MethodCatalog.store).union(MethodCatalog.dispatch)
        let served = Set(MethodContract.all.map(\.methodName)).subtracting([Push.Notify.name])
        #expect(catalog == served)
        #expect(!catalog.contains(Push.Notify.name))
        #expect(MethodCatalog.auth.count + MethodCatalog.store.count + MethodCatalog.dispatch.count == catalog.count)
        #expect(MethodCatalog.auth.allSatisfy { $0.hasPrefix("auth.") || $0.hasPrefix("users.") })
        #expect(MethodCatalog.store.allSatisfy { $0.hasPrefix("store.") })
        #expect(
            MethodCatalog.dispatch.allSatisfy {
                $0.hasPrefix("devices.") || $0.hasPrefix("push.") || $0.hasPrefix("apps.") || $0.hasPrefix("webhooks.")
            })
    }

    @Test("the Fixtures directory holds exactly the files the tests read")
    func noStrayFixtures() throws {
        let present = Set(
            try FileManager.default.contentsOfDirectory(atPath: Fixture.directory().path)
                .filter { $0.hasSuffix(".json") }
                .map { String($0.dropLast(".json".count)) })
        let methodFiles = MethodContract.all.flatMap(\.fixtureFiles)
        let expected = Set(
            methodFiles + ErrorContractTests.cases.map(\.fixture) + EnvelopeContractTests.fixtures
                + PushContractTests.sendToManyFixtures + WebhooksContractTests.eventFixtures)
        #expect(present.subtracting(expected).sorted() == [], "fixtures no test reads")
        #expect(expected.subtracting(present).sorted() == [], "fixtures missing")
    }

    @Test("every method declared in Shared/Models has a contract (a new method needs fixtures)")
    func everyDeclaredMethodHasAContract() throws {
        let models = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Shared/Models")
        let files = try FileManager.default.contentsOfDirectory(atPath: models.path).filter { $0.hasSuffix(".swift") }
        try #require(!files.isEmpty, "no model sources at \(models.path)")
        var declared: Set<String> = []
        for file in files {
            let source = try String(contentsOf: models.appendingPathComponent(file), encoding: .utf8)
            for match in source.matches(of: /static let name = "([^"]+)"/) {
                declared.insert(String(match.output.1))
            }
        }
        #expect(declared == Set(MethodContract.all.map(\.methodName)))
    }

    @Test("each method lives in its own file, named for it: Shared/Models/<Namespace>+<Method>.swift")
    func oneFilePerMethod() throws {
        let models = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Shared/Models")
        for contract in MethodContract.all {
            let parts = contract.methodName.split(separator: ".").map { $0.prefix(1).uppercased() + $0.dropFirst() }
            try #require(parts.count == 2, "\(contract.methodName)")
            let file = models.appendingPathComponent("\(parts[0])+\(parts[1]).swift")
            let source = try String(contentsOf: file, encoding: .utf8)
            // The file declares this method, and no other.
            #expect(source.contains("static let name = \"\(contract.methodName)\""), "\(file.lastPathComponent)")
            #expect(source.matches(of: /static let name = "/).count == 1, "\(file.lastPathComponent)")
        }
    }
}

import JSONRPC
import Logging
import TestSupport
import Testing

@Suite("a request's logger")
struct RequestContextLoggerTests {
    @Test("lines carry the request's request.id beside the logger's own metadata")
    func requestIDOnEveryLine() {
        let log = RecordedLog()
        var base = log.logger()
        base[metadataKey: "service"] = "store"
        let context = RPCRequestContext(bearerToken: nil, logger: base, requestID: 42)
        context.logger.info("first")
        context.logger.debug("second", metadata: ["extra": "1"])
        #expect(log.all.map(\.message) == ["first", "second"])
        #expect(log.all.map { $0.metadata["request.id"]?.description } == ["42", "42"])
        #expect(log.all.map { $0.metadata["service"]?.description } == ["store", "store"])
        #expect(log.all.last?.metadata["extra"]?.description == "1")
        #expect(context.requestID == 42)
    }

    @Test("without a request number the logger is the one given")
    func noRequestID() {
        let log = RecordedLog()
        let context = RPCRequestContext(bearerToken: nil, logger: log.logger())
        context.logger.info("line")
        #expect(log.all.count == 1)
        #expect(log.all.first?.metadata["request.id"] == nil)
    }

    @Test("metadata set through the context's logger stays, with the request.id; a logger assigned is kept as it is")
    func changedLogger() {
        let log = RecordedLog()
        var context = RPCRequestContext(bearerToken: nil, logger: log.logger(), requestID: 7)
        context.logger[metadataKey: "notification.id"] = "n-1"
        context.logger.info("changed")
        let changed = log.all.last?.metadata
        #expect(changed?["notification.id"]?.description == "n-1")
        #expect(changed?["request.id"]?.description == "7")

        let other = RecordedLog()
        context.logger = other.logger(label: "other")
        context.logger.info("assigned")
        #expect(other.all.map(\.message) == ["assigned"])
        #expect(other.all.first?.metadata["request.id"] == nil)
        #expect(log.all.map(\.message) == ["changed"])
    }
}

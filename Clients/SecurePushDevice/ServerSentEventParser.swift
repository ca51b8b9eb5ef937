/// Splits a `text/event-stream` byte stream into events (the WHATWG server-sent events format).
///
/// Bounded: a line or an event's data longer than ``maxEventBytes`` (64 KiB, as the browser SDK's) is
/// ``Oversized``, so a broken or hostile server cannot make the device buffer without end; the connection is then
/// dropped and made again.
struct ServerSentEventParser {
    /// The longest line, and the longest data of one event, in bytes (a `push.notify` event is a few hundred).
    static let maxEventBytes = 64 * 1024

    /// A line or an event's data over ``maxEventBytes``.
    struct Oversized: Error {}

    /// One event: its `id`, `event` name and joined `data` lines.
    struct Event: Equatable {
        var id: String?
        var name: String?
        var data: String
    }

    private var buffer: [UInt8] = []
    private var current = Event(id: nil, name: nil, data: "")
    private var hasData = false

    /// Feeds bytes; returns the events they completed.
    /// - Throws: ``Oversized`` for a line or an event's data over ``maxEventBytes``.
    mutating func feed(_ bytes: some Sequence<UInt8>) throws(Oversized) -> [Event] {
        buffer.append(contentsOf: bytes)
        var events: [Event] = []
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(buffer[..<newline])
            buffer.removeSubrange(...newline)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            guard line.count <= Self.maxEventBytes else { throw Oversized() }
            if let event = process(line: String(decoding: line, as: UTF8.self)) { events.append(event) }
            guard current.data.utf8.count <= Self.maxEventBytes else { throw Oversized() }
        }
        // A line still without its end.
        guard buffer.count <= Self.maxEventBytes else { throw Oversized() }
        return events
    }

    private mutating func process(line: String) -> Event? {
        if line.isEmpty {
            defer {
                current = Event(id: nil, name: nil, data: "")
                hasData = false
            }
            return hasData ? current : nil
        }
        if line.hasPrefix(":") { return nil }  // a comment, e.g. keepalive
        let field: Substring
        var value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = Substring(line)
            value = ""
        }
        switch field {
        case "data":
            current.data += hasData ? "\n" + value : String(value)
            hasData = true
        case "id": current.id = String(value)
        case "event": current.name = String(value)
        default: break
        }
        return nil
    }
}

import Foundation
import ServiceCore
import SharedModels

/// `push.send` as push-dispatch decodes it: to one recipient (``Push/Send``) or to many (``Push/SendToMany``), told
/// apart by which of `recipientId` and `recipientIds` the params hold (exactly one: `-32602` naming `recipientIds`
/// otherwise). Answers in the shape the caller asked for. A later target (a `topic`) joins them here.
enum PushSendCall: RPCMethod {
    static let name = Push.Send.name

    enum Params: Codable, Sendable {
        case one(Push.Send.Params)
        case many(Push.SendToMany.Params)

        private enum Target: String, CodingKey {
            case recipientId, recipientIds
        }

        init(from decoder: any Decoder) throws {
            let target = try decoder.container(keyedBy: Target.self)
            switch (target.contains(.recipientId), target.contains(.recipientIds)) {
            case (true, false): self = .one(try Push.Send.Params(from: decoder))
            case (false, true): self = .many(try Push.SendToMany.Params(from: decoder))
            default:
                throw DispatchError.invalidField("recipientIds", "give exactly one of 'recipientId' and 'recipientIds'")
            }
        }

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .one(let params): try params.encode(to: encoder)
            case .many(let params): try params.encode(to: encoder)
            }
        }
    }

    enum Result: Codable, Sendable, RPCDirectEncodable {
        case one(Push.Send.Result)
        case many(Push.SendToMany.Result)

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            self =
                container.contains(AnyKey("notifications"))
                ? .many(try Push.SendToMany.Result(from: decoder)) : .one(try Push.Send.Result(from: decoder))
        }

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .one(let result): try result.encode(to: encoder)
            case .many(let result): try result.encode(to: encoder)
            }
        }

        func write(to writer: inout JSONWriter) {
            switch self {
            case .one(let result): result.write(to: &writer)
            case .many(let result): result.write(to: &writer)
            }
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension PushSendCall {
    /// The `push.send` audit entry for one recipient: who sent to whom, when, for which app, sealed-only or not,
    /// read-once or not; never the payload.
    static func auditEvent(
        client: String, recipient: String, notification: String, app: String?, sealedOnly: Bool?, readOnce: Bool?,
        sendAt: Date?, deliveries: Int?, address: String?
    ) -> AuditEvent {
        var fields: AuditFields = [
            "client": .text(client), "recipient": .user(recipient), "notification": .text(notification),
            "app": .text(app ?? ""), "sealedOnly": .flag(sealedOnly ?? false), "readOnce": .flag(readOnce ?? false),
            "address": .address(address),
        ]
        if let sendAt { fields["sendAt"] = .integer(sendAt.millisecondsSince1970) }
        if let deliveries { fields["deliveries"] = .integer(Int64(deliveries)) }
        return AuditEvent("push.send", fields)
    }
}

import ArgumentParser
import Foundation
import SecurePushClient
import SharedModels

/// `securepush webhooks`: manage this backend client's webhook endpoints (`webhooks.*`, scope `webhooks:manage`).
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Manage this backend client's signed webhooks (webhooks.*, scope webhooks:manage).",
        discussion:
            "Events are POSTed signed as the Standard Webhooks specification says (webhook-id, webhook-timestamp, webhook-signature); docs/webhooks.md lists them and shows receivers that verify them.",
        subcommands: [Create.self, List.self, Delete.self, Test.self, Rotate.self, Replay.self]
    )

    /// Runs `body` with this client's backend; a webhook id it names is explained when it is not this client's.
    static func withBackend<T: Sendable>(
        _ client: BackendClientOptions, _ endpoints: EndpointOptions, webhookID: String? = nil,
        _ body: @Sendable (SecurePushBackend) async throws -> T
    ) async throws -> T {
        try await client.withBackend(endpoints) { context in
            if let webhookID {
                context.notFound = "no webhook \(webhookID) of this backend client"
                context.notFoundHint = "`securepush webhooks list` shows this client's webhooks"
            }
        } _: { backend in
            try await body(backend)
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register an endpoint; prints its id and its secret (shown once).")

        @Option(help: "where events are POSTed (https://)") var url: String
        @Option(
            name: .customLong("event"),
            help:
                "an event type to receive (repeatable; default: all of them): \(Webhooks.EventType.subscribable.map(\.rawValue).joined(separator: ", "))"
        ) var events: [String] = []
        @Option(help: "what the endpoint is for") var description: String?
        @OptionGroup var client: BackendClientOptions
        @OptionGroup var endpoints: EndpointOptions

        func run() async throws {
            let types =
                events.isEmpty ? Webhooks.EventType.subscribable : events.map(Webhooks.EventType.init(rawValue:))
            let params = Webhooks.Create.Params(url: url, events: types, description: description)
            let created = try await WebhooksCommand.withBackend(client, endpoints) {
                try await $0.createWebhook(params)
            }
            print("webhook \(created.webhookId)")
            print("secret \(created.secret)")
            print(
                "keep the secret: it is not shown again (`securepush webhooks rotate \(created.webhookId)` makes a new one)"
            )
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List this client's endpoints.")

        @Flag(help: "print the webhooks.list result as JSON") var json = false
        @OptionGroup var client: BackendClientOptions
        @OptionGroup var endpoints: EndpointOptions

        func run() async throws {
            let webhooks = try await WebhooksCommand.withBackend(client, endpoints) { try await $0.webhooks() }
            if json {
                let encoder = RPCCodec.makeEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(Webhooks.List.Result(webhooks: webhooks)), as: UTF8.self))
                return
            }
            if webhooks.isEmpty { print("no webhooks") }
            for webhook in webhooks {
                var line =
                    "\(webhook.webhookId) \(webhook.state) \(webhook.url) [\(webhook.events.map(\.rawValue).joined(separator: ","))]"
                if let failingSince = webhook.failingSince {
                    line += " failing since \(failingSince.formatted(.iso8601))"
                }
                if let description = webhook.description { line += " — \(description)" }
                print(line)
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an endpoint and its waiting events.")

        @Argument(help: "the webhook id") var webhookId: String
        @OptionGroup var client: BackendClientOptions
        @OptionGroup var endpoints: EndpointOptions

        func run() async throws {
            try await WebhooksCommand.withBackend(client, endpoints, webhookID: webhookId) {
                try await $0.deleteWebhook(webhookId: webhookId)
            }
            print("deleted \(webhookId)")
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a webhook.test event to an endpoint (enables a disabled one when it arrives).")

        @Argument(help: "the webhook id") var webhookId: String
        @OptionGroup var client: BackendClientOptions
        @OptionGroup var endpoints: EndpointOptions

        func run() async throws {
            let eventID = try await WebhooksCommand.withBackend(client, endpoints, webhookID: webhookId) {
                try await $0.testWebhook(webhookId: webhookId)
            }
            print("queued webhook.test \(eventID) to \(webhookId)")
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give an endpoint a new secret; the old one keeps signing beside it for the overlap.")

        @Argument(help: "the webhook id") var webhookId: String
        @OptionGroup var client: BackendClientOptions
        @OptionGroup var endpoints: EndpointOptions

        func run() async throws {
            let rotated = try await WebhooksCommand.withBackend(client, endpoints, webhookID: webhookId) {
                try await $0.rotateWebhookSecret(webhookId: webhookId)
            }
            print("secret \(rotated.secret)")
            print("the old secret keeps signing until \(rotated.previousSecretExpiresAt.formatted(.iso8601))")
        }
    }

    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send an endpoint's kept events again, since a time (ISO 8601, or e.g. 2h, 30m ago).")

        @Argument(help: "the webhook id") var webhookId: String
        @Option(help: "the oldest event to send again: an ISO 8601 time, or a duration ago such as 90s, 30m, 2h, 1d")
        var since: String
        @OptionGroup var client: BackendClientOptions
        @OptionGroup var endpoints: EndpointOptions

        func run() async throws {
            guard let time = SinceArgument.time(since, now: Date()) else {
                throw CLIError(
                    "--since '\(since)' is neither an ISO 8601 time nor a duration",
                    hint: "e.g. --since 2026-11-27T09:00:00Z or --since 2h")
            }
            let count = try await WebhooksCommand.withBackend(client, endpoints, webhookID: webhookId) {
                try await $0.replayWebhook(.init(webhookId: webhookId, since: time))
            }
            print("queued \(count) event(s) to \(webhookId) again")
        }
    }
}

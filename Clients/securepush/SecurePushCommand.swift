import ArgumentParser

/// `securepush`: run the stack, and play a device or an app backend against it.
@main
struct SecurePushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "securepush",
        abstract: "SecurePush: secure push notifications, self-hosted.",
        subcommands: [
            UpCommand.self, RegisterCommand.self, LoginCommand.self, ListenCommand.self, SendCommand.self,
            StatusCommand.self, FetchCommand.self, DemoCommand.self, ClientsCommand.self, UsersCommand.self,
            CertsCommand.self,
            HealthCommand.self,
        ]
    )
}

// swift-tools-version:6.2
import PackageDescription

/// Settings every SecurePush target shares: Swift 6 language mode with complete concurrency checking.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6)
]

let package = Package(
    name: "SecurePush",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SharedModels", targets: ["SharedModels"]),
        .library(name: "SecurePushClient", targets: ["SecurePushClient"]),
        .executable(name: "auth-service", targets: ["auth-service"]),
        .executable(name: "store-service", targets: ["store-service"]),
        .executable(name: "dispatch-service", targets: ["dispatch-service"]),
        .executable(name: "securepush", targets: ["securepush"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        // MARK: Shared — what both sides of a wire need. No database code here.
        .target(
            name: "JSONRPC",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Shared/JSONRPC",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SharedModels",
            dependencies: ["JSONRPC"],
            path: "Shared/Models",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RPCServer",
            dependencies: [
                "JSONRPC", "SharedModels",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Shared/RPCServer",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HTTP2Client",
            dependencies: [
                "JSONRPC",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Shared/HTTP2Client",
            swiftSettings: swiftSettings
        ),

        // MARK: Services — each a library with all its logic plus a thin executable.
        .target(
            name: "ServiceCore",
            dependencies: [
                "JSONRPC", "SharedModels", "RPCServer", "HTTP2Client",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Services/Common",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AuthService",
            dependencies: [
                "ServiceCore",
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Services/Auth/Sources/AuthService",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "auth-service",
            dependencies: ["AuthService"],
            path: "Services/Auth/Sources/auth-service",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "StoreService",
            dependencies: ["ServiceCore"],
            path: "Services/NotificationStore/Sources/StoreService",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "store-service",
            dependencies: ["StoreService"],
            path: "Services/NotificationStore/Sources/store-service",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DispatchService",
            dependencies: ["ServiceCore"],
            path: "Services/PushDispatch/Sources/DispatchService",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "dispatch-service",
            dependencies: ["DispatchService"],
            path: "Services/PushDispatch/Sources/dispatch-service",
            swiftSettings: swiftSettings
        ),

        .target(
            name: "SecurePushStack",
            dependencies: [
                "ServiceCore", "AuthService", "StoreService", "DispatchService",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Services/Stack",
            swiftSettings: swiftSettings
        ),

        // MARK: Device client — SDK and CLI.
        .target(
            name: "SecurePushClient",
            dependencies: [
                "JSONRPC", "SharedModels", "HTTP2Client",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Clients/SecurePushClient",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "securepush",
            dependencies: [
                "SecurePushClient", "SecurePushStack", "AuthService", "ServiceCore", "SharedModels",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Clients/securepush",
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .target(
            name: "TestSupport",
            dependencies: [
                "JSONRPC", "SharedModels", "HTTP2Client", "RPCServer",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "JSONRPCTests",
            dependencies: ["JSONRPC"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ContractTests",
            dependencies: ["JSONRPC", "SharedModels", "TestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AuthServiceTests",
            dependencies: ["AuthService", "ServiceCore", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StoreServiceTests",
            dependencies: ["StoreService", "ServiceCore", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DispatchServiceTests",
            dependencies: ["DispatchService", "ServiceCore", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTP2ClientTests",
            dependencies: [
                "HTTP2Client", "RPCServer", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "SecurePushClient", "SecurePushStack", "TestSupport", "ServiceCore",
                "AuthService", "StoreService", "DispatchService",
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)

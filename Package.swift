// swift-tools-version:6.2
import PackageDescription

/// Settings every SecurePush target shares: Swift 6 language mode (complete concurrency checking).
let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

// MARK: Products of our dependencies, named once.
let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let hummingbirdCore: Target.Dependency = .product(name: "HummingbirdCore", package: "hummingbird")
let hummingbirdHTTP2: Target.Dependency = .product(name: "HummingbirdHTTP2", package: "hummingbird")
let bcrypt: Target.Dependency = .product(name: "HummingbirdBcrypt", package: "hummingbird-auth")
let nioCore: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")
let nioPosix: Target.Dependency = .product(name: "NIOPosix", package: "swift-nio")
let nioHTTP1: Target.Dependency = .product(name: "NIOHTTP1", package: "swift-nio")
let nioHTTP2: Target.Dependency = .product(name: "NIOHTTP2", package: "swift-nio-http2")
let nioSSL: Target.Dependency = .product(name: "NIOSSL", package: "swift-nio-ssl")
let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let serviceLifecycle: Target.Dependency = .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let jwtKit: Target.Dependency = .product(name: "JWTKit", package: "jwt-kit")
let grdb: Target.Dependency = .product(name: "GRDB", package: "GRDB.swift")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let cryptoExtras: Target.Dependency = .product(name: "CryptoExtras", package: "swift-crypto")
let x509: Target.Dependency = .product(name: "X509", package: "swift-certificates")
let asn1: Target.Dependency = .product(name: "SwiftASN1", package: "swift-asn1")
let asyncHTTPClient: Target.Dependency = .product(name: "AsyncHTTPClient", package: "async-http-client")
let postgresNIO: Target.Dependency = .product(name: "PostgresNIO", package: "postgres-nio")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let metrics: Target.Dependency = .product(name: "Metrics", package: "swift-metrics")
let coreMetrics: Target.Dependency = .product(name: "CoreMetrics", package: "swift-metrics")
let metricsTestKit: Target.Dependency = .product(name: "MetricsTestKit", package: "swift-metrics")
let prometheus: Target.Dependency = .product(name: "Prometheus", package: "swift-prometheus")
let tracing: Target.Dependency = .product(name: "Tracing", package: "swift-distributed-tracing")
let instrumentation: Target.Dependency = .product(name: "Instrumentation", package: "swift-distributed-tracing")
let otel: Target.Dependency = .product(name: "OTel", package: "swift-otel")

/// The services export no dynamic symbols: `-static-stdlib` links executables with `-export-dynamic`, which put every
/// symbol of our code in `.dynsym` (66,000 of them), paged in at start by every symbol lookup and kept alive through
/// `--gc-sections`; without it a service's idle RSS is ~6 MB smaller (docs/benchmarks.md, "5. Memory").
let serviceLinkerSettings: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "--no-export-dynamic"])]

/// Every service has the same shape: a library with all its logic under `Services/<Directory>/Sources/<Library>`,
/// a thin executable beside it, and unit tests in `Tests/<Library>Tests`.
func service(
    _ library: String,
    executable: String,
    directory: String,
    dependencies: [Target.Dependency] = [],
    testDependencies: [Target.Dependency] = []
) -> [Target] {
    [
        .target(
            name: library,
            dependencies: [
                "ServiceCore", "SharedModels", "RPCServer", grdb, postgresNIO, logging, metrics, tracing,
            ]
                + dependencies,
            path: "Services/\(directory)/Sources/\(library)",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: executable,
            dependencies: [.target(name: library), "ServiceCore", "RPCServer", serviceLifecycle, logging],
            path: "Services/\(directory)/Sources/\(executable)",
            swiftSettings: swiftSettings,
            linkerSettings: serviceLinkerSettings
        ),
        .testTarget(
            name: "\(library)Tests",
            dependencies: [
                .target(name: library), "ServiceCore", "SharedModels", "TestSupport", "ChildProcesses", logging,
                metrics,
                metricsTestKit, tracing,
            ]
                + testDependencies,
            swiftSettings: swiftSettings
        ),
    ]
}

/// A push provider's tests: the provider (inside DispatchService) against an in-process mock of the real service.
func providerTests(_ name: String, extra: [Target.Dependency] = []) -> Target {
    .testTarget(
        name: name,
        dependencies: extra + [
            "DispatchService", "ServiceCore", "SharedModels", "TestSupport", "HTTP2Client", hummingbird,
            hummingbirdCore,
            hummingbirdHTTP2, nioCore, nioSSL, jwtKit, crypto, cryptoExtras, httpTypes, serviceLifecycle, logging,
            metrics, metricsTestKit, tracing,
        ],
        swiftSettings: swiftSettings
    )
}

let package = Package(
    name: "SecurePush",
    // iOS 18: the device core uses Mutex (Synchronization); HPKE needs iOS 17, Duration iOS 16.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "SharedModels", targets: ["SharedModels"]),
        .library(name: "SecurePushDevice", targets: ["SecurePushDeviceCore"]),
        .library(name: "SecurePushURLSession", targets: ["SecurePushURLSession"]),
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
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // OTLP/HTTP only: the gRPC exporter would pull grpc-swift and add many build minutes for nothing we need.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // MARK: Shared — what both sides of a wire need. No database code here.
        .target(name: "JSONRPC", dependencies: [logging], path: "Shared/JSONRPC", swiftSettings: swiftSettings),
        .target(name: "SharedModels", dependencies: ["JSONRPC"], path: "Shared/Models", swiftSettings: swiftSettings),
        // The sealed-notification crypto contract (HPKE suite, info/aad, device keys, device proofs), once for the store
        // and the SDK.
        .target(
            name: "SealedPush", dependencies: ["SharedModels", crypto], path: "Shared/Sealing",
            swiftSettings: swiftSettings),
        // Files that hold secrets, written private and atomically: one writer for the CLI, the SDK, the store's key file
        // and the development PKI. Its own target because the SDK and DevelopmentPKI share no other of ours.
        .target(name: "PrivateFiles", path: "Shared/PrivateFiles", swiftSettings: swiftSettings),
        .target(
            name: "RPCServer",
            dependencies: [
                "JSONRPC", "SharedModels", "HTTP2Core", nioCore, nioSSL, serviceLifecycle, logging,
                metrics, prometheus, tracing,
            ],
            path: "Shared/RPCServer",
            swiftSettings: swiftSettings
        ),
        // libnghttp2 (Debian libnghttp2-dev) and the HTTP/2 core on it: nghttp2 frames, our code moves bytes (issue 14).
        .systemLibrary(
            name: "CNGHTTP2", path: "Shared/CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .target(
            name: "HTTP2Core",
            dependencies: [
                "CNGHTTP2", nioCore, nioPosix, nioSSL, nioHTTP1, .product(name: "NIOTLS", package: "swift-nio"),
                logging,
            ],
            path: "Shared/HTTP2Core",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HTTP2Client",
            // Our HTTP/2 client on the libnghttp2 core (HTTP2Core's client session, reached through `package` API).
            dependencies: ["JSONRPC", "HTTP2Core", nioCore, nioPosix, nioHTTP1, nioSSL, logging, tracing],
            path: "Shared/HTTP2Client",
            swiftSettings: swiftSettings
        ),

        // PKCS#11 (issue 32): the C shim that loads a module (Debian libp11-kit-dev's header; nothing linked but libdl),
        // and the Swift keys on it. No dependencies beyond the shim, so the sanitizer package (.ci/asan) builds it alone.
        .target(
            name: "CPKCS11", path: "Services/CPKCS11", cSettings: [.unsafeFlags(["-I/usr/include/p11-kit-1"])],
            linkerSettings: [.linkedLibrary("dl")]),
        .target(
            name: "PKCS11", dependencies: ["CPKCS11"], path: "Services/PKCS11",
            swiftSettings: swiftSettings + [.unsafeFlags(["-Xcc", "-I/usr/include/p11-kit-1"])]),

        // MARK: Services
        .target(
            name: "ServiceCore",
            dependencies: [
                "JSONRPC", "SharedModels", "RPCServer", "HTTP2Client", "PrivateFiles", "PKCS11", grdb,
                .product(name: "GRDBSQLite", package: "GRDB.swift"), postgresNIO,
                jwtKit, crypto,
                serviceLifecycle, logging, metrics, prometheus, tracing, otel,
            ],
            path: "Services/Common",
            swiftSettings: swiftSettings
        ),
    ]
        + service(
            "AuthService", executable: "auth-service", directory: "Auth",
            dependencies: [bcrypt, jwtKit, crypto, nioPosix, "PKCS11"],
            testDependencies: [grdb, postgresNIO, jwtKit, crypto, nioPosix, "PKCS11", "SoftHSMFixture"])
        + service(
            "StoreService", executable: "store-service", directory: "Store",
            dependencies: [serviceLifecycle, "SealedPush", "PrivateFiles", crypto],
            testDependencies: [
                grdb, jwtKit, serviceLifecycle, "SealedPush", crypto, "DevelopmentPKI", "PKCS11", "SoftHSMFixture",
            ])
        + service(
            "DispatchService", executable: "dispatch-service", directory: "Dispatch",
            dependencies: [
                serviceLifecycle, nioCore, nioPosix, httpTypes, "HTTP2Client", jwtKit, crypto, asyncHTTPClient, nioSSL,
                "SealedPush", "WebAssets",
            ],
            testDependencies: [
                grdb, jwtKit, crypto, serviceLifecycle, hummingbird, nioCore, httpTypes, "PKCS11", "SoftHSMFixture",
            ])
        + [
            // The browser SDK and the web inbox (Clients/Web), embedded by Clients/Web/generate-assets.py: its own
            // target so that regenerating it rebuilds one file, not push-dispatch.
            .target(name: "WebAssets", path: "Services/Dispatch/Sources/WebAssets", swiftSettings: swiftSettings),
            .target(
                name: "SecurePushStack",
                dependencies: [
                    "ServiceCore", "AuthService", "StoreService", "DispatchService", serviceLifecycle,
                    logging, metrics, prometheus, tracing,
                ],
                path: "Services/Stack",
                swiftSettings: swiftSettings
            ),

            // MARK: Development PKI — the CA and certificates `securepush certs` writes (compose, tests).
            .target(
                name: "DevelopmentPKI",
                dependencies: ["PrivateFiles", x509, asn1, crypto],
                path: "Services/DevelopmentPKI",
                swiftSettings: swiftSettings
            ),

            // MARK: Device client — SDK and CLI.
            // The device core (issue 28): models, sealing, proofs, tokens, fetch/ack, the challenge answer, behind a
            // transport protocol; Foundation, swift-crypto and swift-log only (no system library, no SwiftNIO), so
            // it builds for iOS. `.ci/run` checks its dependency graph.
            .target(
                name: "SecurePushDeviceCore",
                dependencies: ["JSONRPC", "SharedModels", "SealedPush", crypto, logging],
                path: "Clients/SecurePushDevice",
                swiftSettings: swiftSettings
            ),
            // The core's transport on Foundation's URLSession: the platform transport on Apple. Not for the CLI or the
            // service images (an executable linking FoundationNetworking statically needs libcurl4-openssl-dev).
            .target(
                name: "SecurePushURLSession",
                dependencies: ["SecurePushDeviceCore", "JSONRPC"],
                path: "Clients/SecurePushURLSession",
                swiftSettings: swiftSettings
            ),
            // The iOS sample (app side and Notification Service Extension): compiled and tested here but for its
            // Apple-only lines (`#if canImport(UIKit)`).
            .target(
                name: "SecurePushNSEExample",
                dependencies: ["SecurePushDeviceCore", "SecurePushURLSession", logging],
                path: "Clients/Examples/ios-nse",
                exclude: ["README.md"],
                swiftSettings: swiftSettings
            ),
            // The SDK on our HTTP/2 client, for Linux servers, the CLI and tests: the core plus its transport.
            .target(
                name: "SecurePushClient",
                dependencies: [
                    "SecurePushDeviceCore", "JSONRPC", "SharedModels", "SealedPush", "HTTP2Client", "PrivateFiles",
                    nioCore, crypto, logging,
                ],
                path: "Clients/SecurePushClient",
                swiftSettings: swiftSettings
            ),
            .executableTarget(
                name: "securepush",
                dependencies: [
                    "SecurePushClient", "SecurePushStack", "AuthService", "DispatchService", "ServiceCore",
                    "SharedModels",
                    "DevelopmentPKI", "HTTP2Client", "PrivateFiles", "PKCS11", crypto,
                    argumentParser,
                    serviceLifecycle, logging,
                ],
                path: "Clients/securepush",
                swiftSettings: swiftSettings
            ),

            // MARK: Tests
            // Raises the test process's soft open-file limit to its hard limit before any test runs.
            .target(name: "TestProcessLimits", path: "Tests/TestProcessLimits"),
            // SoftHSM2 tokens made for a test (PKCS#11, issue 32): its own target, so the sanitizer package (.ci/asan)
            // runs the PKCS#11 tests without TestSupport's dependencies.
            .target(
                name: "SoftHSMFixture", dependencies: ["PKCS11", "ChildProcesses"], path: "Tests/SoftHSMFixture",
                swiftSettings: swiftSettings),
            // Waits on child processes (peers, services, the CLI) with a limit, so a test fails instead of hanging.
            .target(name: "ChildProcesses", path: "Tests/ChildProcesses", swiftSettings: swiftSettings),
            .target(
                name: "TestSupport",
                dependencies: [
                    "TestProcessLimits", "ChildProcesses", "ServiceCore", "SharedModels", "DevelopmentPKI", "PKCS11",
                    x509,
                    crypto, nioCore,
                    nioHTTP2, nioSSL, jwtKit, postgresNIO, hummingbird, hummingbirdCore, hummingbirdHTTP2, httpTypes,
                    serviceLifecycle, logging, metrics, metricsTestKit, prometheus, tracing, instrumentation,
                ],
                path: "Tests/TestSupport",
                swiftSettings: swiftSettings
            ),
            // A mock of the APNs provider API that checks what Apple checks: the APNs tests and the fan-out benchmark.
            .target(
                name: "APNsMock",
                dependencies: [
                    "DispatchService", "ServiceCore", "SharedModels", "TestSupport", hummingbird, hummingbirdCore,
                    hummingbirdHTTP2,
                    nioCore, nioHTTP2, httpTypes, jwtKit, crypto, serviceLifecycle, logging,
                ],
                path: "Tests/APNsMock",
                swiftSettings: swiftSettings
            ),

            // MARK: Benchmarks — the load generators Benchmarks/run.sh runs (benchmarks 2 and 3).
            .executableTarget(
                name: "securepush-bench",
                dependencies: [
                    "SecurePushClient", "SharedModels", "APNsMock", "TestSupport", "AuthService", "DispatchService",
                    "ServiceCore", argumentParser, logging,
                ],
                path: "Benchmarks/securepush-bench",
                swiftSettings: swiftSettings
            ),
            // The HTTP/2 core alone answering a fixed body: Benchmarks/run.sh --only h2core.
            .executableTarget(
                name: "h2core-bench-server",
                dependencies: ["HTTP2Core", nioCore, nioPosix, logging],
                path: "Benchmarks/h2core-bench-server",
                swiftSettings: swiftSettings
            ),
            .testTarget(
                name: "DevelopmentPKITests",
                dependencies: [
                    "DevelopmentPKI", "TestSupport", "SecurePushClient", "SharedModels", hummingbird, x509, crypto,
                    nioSSL,
                    logging,
                ],
                swiftSettings: swiftSettings
            ),
            .testTarget(
                name: "PKCS11Tests", dependencies: ["PKCS11", "SoftHSMFixture", crypto], swiftSettings: swiftSettings),
            .testTarget(
                name: "ServiceCoreTests",
                dependencies: [
                    "ServiceCore", "RPCServer", "SharedModels", "TestSupport", "ChildProcesses", "HTTP2Client", grdb,
                    postgresNIO, logging, metrics, metricsTestKit, tracing, serviceLifecycle,
                ],
                swiftSettings: swiftSettings),
            .testTarget(
                name: "SecurePushURLSessionTests",
                dependencies: [
                    "SecurePushURLSession", "SecurePushClient", "SecurePushStack", "TestSupport", "SharedModels",
                    logging,
                ],
                swiftSettings: swiftSettings),
            .testTarget(
                name: "SecurePushClientTests",
                dependencies: [
                    "SecurePushClient", "SecurePushDeviceCore", "SealedPush", "SharedModels", "TestSupport", crypto,
                    hummingbird, logging,
                ],
                swiftSettings: swiftSettings),
            .testTarget(
                name: "PrivateFilesTests", dependencies: ["PrivateFiles", "TestSupport"], swiftSettings: swiftSettings),
            .testTarget(
                name: "SealedPushTests", dependencies: ["SealedPush", "SharedModels", "TestSupport", crypto],
                swiftSettings: swiftSettings),
            .testTarget(
                name: "JSONRPCTests", dependencies: ["JSONRPC", "TestSupport", logging], swiftSettings: swiftSettings),
            .testTarget(
                name: "ContractTests",
                dependencies: ["JSONRPC", "SharedModels", "ServiceCore", "TestSupport", logging],
                resources: [.copy("Fixtures")],
                swiftSettings: swiftSettings
            ),
            .testTarget(
                name: "HTTP2ClientTests",
                dependencies: [
                    "HTTP2Client", "JSONRPC", "SharedModels", "TestSupport", hummingbird, hummingbirdCore,
                    hummingbirdHTTP2, httpTypes, nioCore, nioHTTP2, nioSSL, serviceLifecycle, logging, tracing,
                ],
                swiftSettings: swiftSettings
            ),
            // The services' RPC server on the HTTP/2 core, driven over real sockets by curl.
            .testTarget(
                name: "RPCServerTests",
                dependencies: [
                    "RPCServer", "HTTP2Core", "JSONRPC", "TestSupport", nioCore, serviceLifecycle, logging, metrics,
                    tracing,
                ],
                swiftSettings: swiftSettings
            ),
            .testTarget(
                name: "HTTP2CoreTests",
                // TestProcessLimits also for the sanitizer package (.ci/asan), whose test process has no other way in.
                dependencies: [
                    "HTTP2Core", "DevelopmentPKI", "TestProcessLimits", "ChildProcesses", nioCore, nioPosix, nioSSL,
                    logging, .product(name: "NIOEmbedded", package: "swift-nio"),
                ],
                swiftSettings: swiftSettings
            ),
            // Push providers: one test target each, with a mock server speaking the provider's real protocol.
            // APNs also runs the whole stack against its mock: push.send → durable worker → APNs.
            providerTests(
                "APNsProviderTests",
                extra: [
                    "APNsMock", "SecurePushStack", "SecurePushClient", "SecurePushURLSession", "SecurePushNSEExample",
                    "AuthService",
                ]),
            providerTests("FCMProviderTests", extra: ["SecurePushStack", "SecurePushClient", "AuthService"]),
            providerTests("WNSProviderTests"),
            providerTests("WebPushProviderTests"),
            .testTarget(
                name: "EndToEndTests",
                dependencies: [
                    "SecurePushClient", "SecurePushStack", "TestSupport", "TestProcessLimits", "ChildProcesses",
                    "ServiceCore",
                    "SharedModels", "HTTP2Client", "AuthService", "StoreService", "DispatchService", jwtKit, crypto,
                    postgresNIO, logging, metrics, metricsTestKit, prometheus, tracing, "SoftHSMFixture", "PKCS11",
                ],
                swiftSettings: swiftSettings
            ),
        ]
)

// swift-tools-version:6.2
import PackageDescription

// HTTP2CoreTests and PKCS11Tests alone, for the AddressSanitizer/LeakSanitizer step of .ci/run: the two C boundaries,
// libnghttp2 (issue 14) and a PKCS#11 module loaded by the CPKCS11 shim (issue 32).
//
// The root package's sanitizer build compiles every target and dependency (41 minutes here); this package holds only
// what those tests need. Its targets are symlinks to the root package's directories (whole directories, so files
// added there are built here too), and its dependencies are the root package's, by the same URLs and versions.
// Build it with its own scratch path:
//
//   swift build --package-path .ci/asan --scratch-path .build-asan --build-tests --sanitize=address

let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let nioCore: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")
let nioPosix: Target.Dependency = .product(name: "NIOPosix", package: "swift-nio")
let nioHTTP1: Target.Dependency = .product(name: "NIOHTTP1", package: "swift-nio")
let nioTLS: Target.Dependency = .product(name: "NIOTLS", package: "swift-nio")
let nioSSL: Target.Dependency = .product(name: "NIOSSL", package: "swift-nio-ssl")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let x509: Target.Dependency = .product(name: "X509", package: "swift-certificates")
let asn1: Target.Dependency = .product(name: "SwiftASN1", package: "swift-asn1")

let package = Package(
    name: "SecurePushASan",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CNGHTTP2", path: "Sources/CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .target(
            name: "HTTP2Core",
            dependencies: ["CNGHTTP2", nioCore, nioPosix, nioSSL, nioHTTP1, nioTLS, logging],
            path: "Sources/HTTP2Core",
            swiftSettings: swiftSettings
        ),
        .target(name: "PrivateFiles", path: "Sources/PrivateFiles", swiftSettings: swiftSettings),
        .target(
            name: "DevelopmentPKI",
            dependencies: ["PrivateFiles", x509, asn1, crypto],
            path: "Sources/DevelopmentPKI",
            swiftSettings: swiftSettings
        ),
        // Raises the test process's open-file limit (the 1,500-connection test needs more than a shell's 1,024) and
        // bounds how many tests run at once, as in the root package.
        .target(name: "TestProcessLimits", path: "Tests/TestProcessLimits"),
        // Waits on the tests' peer programs with a limit.
        .target(name: "ChildProcesses", path: "Tests/ChildProcesses", swiftSettings: swiftSettings),
        // PKCS#11: the shim that loads a module, the Swift keys on it, and the SoftHSM2 tokens its tests make.
        .target(
            name: "CPKCS11", path: "Sources/CPKCS11", cSettings: [.unsafeFlags(["-I/usr/include/p11-kit-1"])],
            linkerSettings: [.linkedLibrary("dl")]),
        .target(
            name: "PKCS11", dependencies: ["CPKCS11"], path: "Sources/PKCS11",
            swiftSettings: swiftSettings + [.unsafeFlags(["-Xcc", "-I/usr/include/p11-kit-1"])]),
        .target(
            name: "SoftHSMFixture", dependencies: ["PKCS11"], path: "Tests/SoftHSMFixture",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PKCS11Tests", dependencies: ["PKCS11", "SoftHSMFixture", crypto], path: "Tests/PKCS11Tests",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HTTP2CoreTests",
            dependencies: [
                "HTTP2Core", "DevelopmentPKI", "TestProcessLimits", "ChildProcesses", nioCore, nioPosix, nioSSL,
                logging, .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            path: "Tests/HTTP2CoreTests",
            swiftSettings: swiftSettings
        ),
    ]
)

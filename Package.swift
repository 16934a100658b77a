// swift-tools-version: 6.1
import PackageDescription

// Strict concurrency everywhere: every target is compiled in the Swift 6 language mode.
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "pi-relayd",
    products: [
        .executable(name: "pi-relayd", targets: ["SupervisorMain"]),
        .executable(name: "pi-relay-discord", targets: ["DiscordMain"]),
        .executable(name: "pi-relay-telegram", targets: ["TelegramMain"]),
        .executable(name: "pi-relay-slack", targets: ["SlackMain"]),
        .executable(name: "pi-relay-formatter", targets: ["FormatterMain"]),
        .executable(name: "pi-relay-attachments", targets: ["AttachmentsMain"]),
        .executable(name: "pi-relay-web", targets: ["WebMain"]),
        .executable(name: "pi-relay-federation", targets: ["FederationMain"]),
        .executable(name: "pi-relayd-bench", targets: ["Bench"]),
        .library(name: "PiRelaySDK", targets: ["PiRelaySDK"]),
        .library(name: "MessengerKit", targets: ["MessengerKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        // Opt-in Prometheus metrics (issue 16): swift-metrics' API over swift-prometheus' registry.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // The web dashboard's server. No traits: the default ones pull in full Foundation (ICU)
        // and swift-configuration.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        // Already in the graph through swift-websocket and Hummingbird: the web dashboard reads
        // the control socket over NIO and loads its TLS files with NIOSSL.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CLibYAML", path: "Sources/CLibYAML", pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CLinux", path: "Sources/Supervisor/CLinux"),
        .target(
            name: "PiRelaySDK",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Sources/SDK",
            swiftSettings: strict),
        // The machinery every messenger shares, built on the SDK; a messenger plugin is an adapter
        // over it: its API client, its event mapping, its buttons, its dialect.
        .target(
            name: "MessengerKit",
            dependencies: ["PiRelaySDK", "PiRelayHTTP", .product(name: "Logging", package: "swift-log")],
            path: "Sources/MessengerKit",
            swiftSettings: strict),
        // Each executable is a thin `Main/main.swift` over a library of the same folder, so tests
        // and fuzz targets import the library.
        // The supervisor's IO: child processes and their pipes, read by one epoll thread.
        .target(
            name: "SupervisorIO", dependencies: ["PiRelaySDK", "CLinux"], path: "Sources/Supervisor/IO", swiftSettings: strict),
        .target(
            name: "Supervisor",
            dependencies: [
                "PiRelaySDK", "SupervisorIO", "CLibYAML", "CLinux",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Sources/Supervisor",
            exclude: ["Main", "CLinux", "IO", "CLI"],
            swiftSettings: strict),
        .target(
            name: "SupervisorCLI",
            dependencies: [
                "Supervisor", "SupervisorIO", "PiRelaySDK", "CLinux",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Supervisor/CLI", swiftSettings: strict),
        .executableTarget(
            name: "SupervisorMain", dependencies: ["SupervisorCLI"], path: "Sources/Supervisor/Main",
            swiftSettings: strict),
        // libcurl for every plugin that speaks HTTP: the transfer loop, proxies, token-carrying URLs.
        .target(name: "PiRelayHTTP", dependencies: ["PiRelaySDK", "CCurl"], path: "Sources/plugins/HTTP", swiftSettings: strict),
        // Discord's gateway payloads, decoded: no network code, so the fuzz target builds without NIO.
        .target(name: "DiscordPayloads", dependencies: ["PiRelaySDK"], path: "Sources/plugins/discord/Payloads", swiftSettings: strict),
        .target(
            name: "DiscordPlugin",
            dependencies: ["PiRelaySDK", "MessengerKit", "PiRelayHTTP", "DiscordPayloads", .product(name: "WSClient", package: "swift-websocket")],
            path: "Sources/plugins/discord",
            exclude: ["Main", "Payloads"],
            swiftSettings: strict),
        .executableTarget(
            name: "DiscordMain", dependencies: ["DiscordPlugin"], path: "Sources/plugins/discord/Main",
            swiftSettings: strict),
        .target(
            name: "TelegramPlugin", dependencies: ["PiRelaySDK", "MessengerKit", "PiRelayHTTP"], path: "Sources/plugins/telegram", exclude: ["Main"],
            swiftSettings: strict),
        .executableTarget(
            name: "TelegramMain", dependencies: ["TelegramPlugin"], path: "Sources/plugins/telegram/Main",
            swiftSettings: strict),
        .target(
            name: "SlackPlugin",
            dependencies: ["PiRelaySDK", "MessengerKit", "PiRelayHTTP", .product(name: "WSClient", package: "swift-websocket")],
            path: "Sources/plugins/slack", exclude: ["Main"], swiftSettings: strict),
        .executableTarget(
            name: "SlackMain", dependencies: ["SlackPlugin"], path: "Sources/plugins/slack/Main",
            swiftSettings: strict),
        .target(
            name: "FormatterPlugin",
            dependencies: ["PiRelaySDK"],
            path: "Sources/plugins/formatter",
            exclude: ["Main"],
            swiftSettings: strict),
        .executableTarget(
            name: "FormatterMain", dependencies: ["FormatterPlugin"], path: "Sources/plugins/formatter/Main",
            swiftSettings: strict),
        .target(
            name: "AttachmentsPlugin",
            dependencies: ["PiRelaySDK", "PiRelayHTTP", "SupervisorIO"],
            path: "Sources/plugins/attachments",
            exclude: ["Main"],
            swiftSettings: strict),
        .executableTarget(
            name: "AttachmentsMain", dependencies: ["AttachmentsPlugin"], path: "Sources/plugins/attachments/Main",
            swiftSettings: strict),
        // The web dashboard: a messenger whose chats are browser pages, served by Hummingbird.
        .target(
            name: "WebPlugin",
            dependencies: [
                "PiRelaySDK", "MessengerKit", "SupervisorIO",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // Only for `HTTPParserError`, which Hummingbird's server raises for a body that is
                // not HTTP; built already as Hummingbird's own dependency.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Sources/plugins/web", exclude: ["Main"], swiftSettings: strict),
        .executableTarget(
            name: "WebMain", dependencies: ["WebPlugin"], path: "Sources/plugins/web/Main",
            swiftSettings: strict),
        // Machines joined through PostgreSQL: the schema, the machines, the ingress leases on the
        // database clock, the fenced cursors and the once-only claims.
        .target(
            name: "FederationPlugin",
            dependencies: [
                "PiRelaySDK", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/plugins/federation", exclude: ["Main"], swiftSettings: strict),
        .executableTarget(
            name: "FederationMain", dependencies: ["FederationPlugin"], path: "Sources/plugins/federation/Main",
            swiftSettings: strict),
        .executableTarget(
            name: "Bench",
            dependencies: ["PiRelaySDK"],
            path: "Sources/Bench",
            swiftSettings: strict),
        .testTarget(name: "SDKTests", dependencies: ["PiRelaySDK"], path: "Tests/SDKTests", swiftSettings: strict),
        .testTarget(
            name: "MessengerKitTests", dependencies: ["MessengerKit", "PiRelaySDK"], path: "Tests/MessengerKitTests", swiftSettings: strict),
        // The bundled plugins' libraries give the config tests the schemas their hellos declare.
        .testTarget(
            name: "SupervisorTests",
            dependencies: [
                "Supervisor", "SupervisorIO", "SupervisorCLI", "PiRelaySDK", "DiscordPlugin", "TelegramPlugin", "SlackPlugin", "FormatterPlugin",
                "AttachmentsPlugin",
            ],
            path: "Tests/SupervisorTests", swiftSettings: strict),
        .testTarget(name: "FormatterTests", dependencies: ["FormatterPlugin", "PiRelaySDK"], path: "Tests/FormatterTests", swiftSettings: strict),
        .testTarget(
            name: "AttachmentsTests", dependencies: ["AttachmentsPlugin", "PiRelaySDK", "PiRelayHTTP"], path: "Tests/AttachmentsTests",
            swiftSettings: strict),
        .testTarget(name: "HTTPTests", dependencies: ["PiRelayHTTP"], path: "Tests/HTTPTests", swiftSettings: strict),
        .testTarget(
            name: "DiscordTests", dependencies: ["DiscordPlugin", "DiscordPayloads", "PiRelaySDK", "PiRelayHTTP"], path: "Tests/DiscordTests",
            swiftSettings: strict),
        .testTarget(
            name: "TelegramTests", dependencies: ["TelegramPlugin", "MessengerKit", "PiRelaySDK"], path: "Tests/TelegramTests", swiftSettings: strict),
        .testTarget(name: "SlackTests", dependencies: ["SlackPlugin", "PiRelaySDK"], path: "Tests/SlackTests", swiftSettings: strict),
        // State files as released plugins wrote them, read by today's code (MessengerKit's moves).
        .testTarget(
            name: "MessengerStateTests", dependencies: ["DiscordPlugin", "TelegramPlugin", "SlackPlugin", "PiRelaySDK"],
            path: "Tests/MessengerStateTests", swiftSettings: strict),
        // A real PostgreSQL in a temporary folder, for the federation store's tests and the
        // federated stack tests.
        .target(name: "PostgresSupport", dependencies: ["SupervisorIO"], path: "Tests/PostgresSupport", swiftSettings: strict),
        .testTarget(
            name: "FederationTests",
            dependencies: ["FederationPlugin", "PiRelaySDK", "PostgresSupport", .product(name: "NIOCore", package: "swift-nio")],
            path: "Tests/FederationTests", swiftSettings: strict),
        .testTarget(name: "WebTests", dependencies: ["WebPlugin", "PiRelaySDK"], path: "Tests/WebTests", swiftSettings: strict),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["PiRelaySDK", "PiRelayHTTP", "PostgresSupport"],
            path: "Tests/IntegrationTests",
            exclude: [], swiftSettings: strict),
    ]
)

/// Compiler and linker flags for this package's own Swift targets only (the fuzz and sanitized
/// builds below): the dependencies keep the flags the scratch path built them with.
@MainActor func instrumentOwnTargets(compile: [String], link: [String]) {
    for target in package.targets where [.regular, .executable, .test].contains(target.type) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(compile)]
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(link)]
    }
}

// Fuzz targets (`make fuzz`, Sources/Fuzz). They exist only when PI_RELAYD_FUZZ_LIB names
// libFuzzer's archive without a main (libclang_rt.fuzzer_no_main-<arch>.a), so a plain
// `swift build` never sees them. Each starts libFuzzer through LLVMFuzzerRunDriver from its own
// main: linking with `-sanitize=fuzzer` would add libFuzzer's main as well, which clashes with the
// one SwiftPM gives every executable. They import the libraries under test; what they reach
// there is `package`, since a release build has no `@testable import`.
if let libFuzzer = Context.environment["PI_RELAYD_FUZZ_LIB"], !libFuzzer.isEmpty {
    package.targets += [
        .systemLibrary(name: "CLibFuzzer", path: "Sources/Fuzz/CLibFuzzer"),
        .target(
            name: "FuzzDriver", dependencies: ["CLibFuzzer"], path: "Sources/Fuzz/Driver", swiftSettings: strict,
            linkerSettings: [.linkedLibrary("stdc++"), .unsafeFlags(["-Xlinker", libFuzzer])]),
    ]
    let fuzzTargets: [(product: String, folder: String, dependencies: [Target.Dependency])] = [
        ("fuzz-line-framer", "LineFramer", ["PiRelaySDK"]),
        ("fuzz-wire-message", "WireMessage", ["PiRelaySDK"]),
        ("fuzz-pi-event-reader", "PiEventReader", ["PiRelaySDK"]),
        ("fuzz-config-loader", "ConfigLoader", ["Supervisor"]),
        ("fuzz-splitter", "Splitter", ["FormatterPlugin"]),
        ("fuzz-gateway-payload", "GatewayPayload", ["PiRelaySDK", "DiscordPayloads"]),
    ]
    for fuzz in fuzzTargets {
        package.targets.append(
            .executableTarget(
                name: "Fuzz" + fuzz.folder, dependencies: ["FuzzDriver"] + fuzz.dependencies,
                path: "Sources/Fuzz/" + fuzz.folder, swiftSettings: strict))
        package.products.append(.executable(name: fuzz.product, targets: ["Fuzz" + fuzz.folder]))
    }
    // AddressSanitizer, and the coverage libFuzzer steers by, in this package's code only: what
    // is fuzzed is ours, and the dependencies stay as the scratch path built them, so CI fuzzes
    // in `make test`'s build folder without compiling them again.
    instrumentOwnTargets(
        compile: ["-sanitize=address", "-sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp"], link: ["-sanitize=address"])
}

// `make sanitize` with SANITIZE_SCRATCH set (CI): only this package's targets are built with the
// sanitizer PI_RELAYD_SANITIZE names; the dependencies stay as the scratch path's unsanitized
// build left them, so CI's sanitized build compiles only our code again rather than NIO,
// Hummingbird and BoringSSL a second time. Code outside the package runs uninstrumented: no
// report comes from inside it, and a lock or atomic only it uses is not seen (tsan.supp).
if let sanitizer = Context.environment["PI_RELAYD_SANITIZE"], !sanitizer.isEmpty {
    // The test targets the sanitized run uses (PI_RELAYD_SANITIZE_TESTS, comma-separated): the
    // others are left out of the build, so no test code is compiled that will not run.
    let tests = Set((Context.environment["PI_RELAYD_SANITIZE_TESTS"] ?? "").split(separator: ",").map(String.init))
    if !tests.isEmpty { package.targets.removeAll { $0.type == .test && !tests.contains($0.name) } }
    instrumentOwnTargets(compile: ["-sanitize=" + sanitizer], link: ["-sanitize=" + sanitizer])
}

// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

/// One set of settings for every target: Swift 6 mode plus the upcoming features we hold ourselves to.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "foundation-models-linux",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FoundationModels", targets: ["FoundationModels"]),
        .executable(name: "fm", targets: ["fm"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/pointfreeco/swift-macro-testing", from: "0.7.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    ],
    targets: [
        // MARK: Public API
        .target(
            name: "FoundationModels",
            dependencies: ["FoundationModelsMacros", "FMEngine", "FMDecoding", "FMLlama"],
            swiftSettings: swiftSettings
        ),
        .macro(
            name: "FoundationModelsMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Grammar and decoding (pure Swift, no llama.cpp)
        .target(name: "FMDecoding", swiftSettings: swiftSettings),

        // MARK: llama.cpp runtime (the only place that calls llama.cpp)
        // No distribution packages the pinned llama.cpp, so there are no `providers`: when `<llama.h>` is
        // missing, shim.h stops the build with the install command (`make install`).
        .systemLibrary(name: "CLlama", pkgConfig: "llama"),
        .target(name: "FMLlama", dependencies: ["CLlama"], swiftSettings: swiftSettings),

        // MARK: The in-process engine: loaded models, the token loop and its decisions (llama.cpp through FMLlama)
        .target(name: "FMEngine", dependencies: ["FMDecoding", "FMLlama"], swiftSettings: swiftSettings),

        // MARK: Tagging at scale (batch tagging, evaluation, statistics, result cache)
        .target(
            name: "FMCache",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .target(name: "FMTagging", dependencies: ["FoundationModels", "FMCache", "FMDecoding", "FMEngine"], swiftSettings: swiftSettings),
        // Self-contained HTML reports (inline SVG and CSS) of evaluations and tag statistics.
        .target(name: "FMReports", dependencies: ["FMTagging"], swiftSettings: swiftSettings),

        // MARK: HTTP server (`fm serve`): OpenAI-compatible chat completions and batch tagging over the engine
        .target(
            name: "FMServer",
            dependencies: ["FoundationModels", "FMTagging", "FMEngine", "FMLlama",
                           .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                           .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                           .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras")],
            swiftSettings: swiftSettings
        ),

        // MARK: Command-line tool
        .executableTarget(
            name: "fm",
            dependencies: [
                "FoundationModels",
                "FMTagging",
                "FMReports",
                "FMCache",
                "FMEngine",
                "FMLlama",
                "FMServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Benchmarks (release builds only, run by `make bench`)
        .executableTarget(
            name: "fm-bench",
            dependencies: ["FoundationModels", "FMLlama", "FMDecoding", "FMTagging"],
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .testTarget(name: "FMDecodingTests", dependencies: ["FMDecoding"], swiftSettings: swiftSettings),
        .testTarget(
            name: "FoundationModelsMacrosTests",
            dependencies: [
                "FoundationModelsMacros",
                .product(name: "MacroTesting", package: "swift-macro-testing"),
                .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax"),
            ],
            swiftSettings: swiftSettings
        ),
        // Every @Generable type from the seed documents, verbatim; shared by the unit and integration tests.
        .target(name: "SeedTypes", dependencies: ["FoundationModels"], path: "Tests/SeedTypes", swiftSettings: swiftSettings),
        // Code in the style of Apple's macOS 27 documentation; compile-only.
        .target(name: "API27Samples", dependencies: ["FoundationModels"], path: "Tests/API27Samples", swiftSettings: swiftSettings),
        // Client code from a module where `async` functions run on their caller's actor by default; compile-only.
        .target(name: "NonsendingSamples", dependencies: ["FoundationModels"], path: "Tests/NonsendingSamples",
                swiftSettings: swiftSettings + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]),
        // Client code from a module whose declarations belong to the main actor by default; compiled, and run
        // with the real model by the integration tests.
        .target(name: "MainActorSamples", dependencies: ["FoundationModels"], path: "Tests/MainActorSamples",
                swiftSettings: swiftSettings + [.defaultIsolation(MainActor.self)]),
        .testTarget(
            name: "FoundationModelsTests",
            dependencies: ["FoundationModels", "FMDecoding", "FMEngine", "FMLlama", "SeedTypes", "API27Samples", "NonsendingSamples", "MainActorSamples"],
            swiftSettings: swiftSettings
        ),
        // The official JSON Schema test suite (MIT) against the importer and the grammar.
        .testTarget(
            name: "JSONSchemaSuiteTests",
            dependencies: ["FoundationModels", "FMDecoding"],
            resources: [.copy("Resources/json-schema-test-suite")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "FMTaggingTests", dependencies: ["FMCache", "FMTagging", "FMDecoding", "FMEngine", "FoundationModels"], swiftSettings: swiftSettings),
        // Drives headless Chromium over the DevTools protocol; shared by the report and integration tests.
        .target(name: "HeadlessBrowser", path: "Tests/HeadlessBrowser", swiftSettings: swiftSettings),
        .testTarget(
            name: "FMReportsTests",
            dependencies: ["FMReports", "FMTagging", "FoundationModels", "HeadlessBrowser"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "FMCacheTests", dependencies: ["FMCache"], swiftSettings: swiftSettings),
        .testTarget(name: "FMLlamaTests", dependencies: ["FMLlama"], swiftSettings: swiftSettings),
        .testTarget(name: "FMEngineTests", dependencies: ["FMEngine", "FMDecoding"], swiftSettings: swiftSettings),
        .testTarget(name: "FMServerTests", dependencies: ["FMServer", "FMTagging"], swiftSettings: swiftSettings),
        // The README's Quick start, followed in a new package that depends on this checkout (needs `make install`).
        .testTarget(name: "QuickStartTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["FoundationModels", "FMLlama", "FMDecoding", "FMEngine", "FMTagging", "SeedTypes", "HeadlessBrowser",
                           "MainActorSamples"],
            swiftSettings: swiftSettings
        ),
    ]
)

// Contributor-only: `make docs` sets FM_ENABLE_DOCS to add the DocC plugin, so packages that depend on
// this one never resolve it.
if Context.environment["FM_ENABLE_DOCS"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}

// swift-tools-version:6.1
import Foundation
import PackageDescription

let package = Package(
    name: "flowd",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "FlowKit", targets: ["FlowKit"]),
        .library(name: "FlowKitTesting", targets: ["FlowKitTesting"]),
        .library(name: "FlowApp", targets: ["FlowApp"]),
        .library(name: "FlowProtobuf", targets: ["FlowProtobuf"]),
        .library(name: "FlowDaemon", targets: ["FlowDaemon"]),
        .library(name: "FlowDaemonTesting", targets: ["FlowDaemonTesting"]),
        .library(name: "FlowWire", targets: ["FlowWire"]),
        .library(name: "ScreenKit", targets: ["ScreenKit"]),
        .library(name: "FlowdCommand", targets: ["FlowdCommand"]),
        .executable(name: "flowd", targets: ["flowd"]),
        .executable(name: "flowctl", targets: ["flowctl"]),
        .executable(name: "demo-screens", targets: ["demo-screens"]),
        .executable(name: "flowbench", targets: ["flowbench"]),
        .executable(name: "flowd-web", targets: ["flowd-web"]),
    ],
    // Web: flowd-web's HTTP and WebSocket server (Hummingbird, SwiftNIO). On by default, so this
    // package builds whole; an app's package that does not serve browsers depends on flowd with
    // `traits: []`, and then SwiftPM neither fetches nor builds the web stack (docs/daemon.md).
    traits: [
        .trait(name: "Web", description: "flowd-web: the browser host and the inspector (Hummingbird, SwiftNIO)"),
        .default(enabledTraits: ["Web"]),
    ],
    dependencies: [
        // Without its default traits (binary-delimited streams, field-mask utilities), which flowd
        // does not use: their -D flags came in a different order from one plan to the next and
        // recompiled the package.
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0", traits: []),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // flowd-web's HTTP and WebSocket server (docs/web.md says why these).
        // Without its default traits (swift-configuration support, full Foundation), which flowd-web
        // does not use: as for swift-protobuf, their flags' order changed from plan to plan.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    ],
    targets: [
        // SQLite from the system (Debian: libsqlite3-dev). Only FlowJournal imports it (docs/journal.md).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The daemon's journal of inputs, in SQLite (docs/journal.md).
        .target(name: "FlowJournal", dependencies: ["CSQLite"]),
        // libuv from the system (Debian: libuv1-dev). Only UVKit imports it.
        .systemLibrary(
            name: "CLibUV",
            pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"])]
        ),
        .target(
            name: "UVKit",
            dependencies: [
                "CLibUV",
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // Protobuf's wire form read and written by hand, for the fast codecs (no dependencies).
        .target(name: "ProtobufWire"),
        .target(
            name: "FlowWire",
            dependencies: ["ProtobufWire", .product(name: "SwiftProtobuf", package: "swift-protobuf")]
        ),
        // A blocking Unix stream socket with timeouts, for clients (flowctl, screen hosts, tests).
        .target(name: "FlowSocket"),
        // Blocking client side of the protocol, for flowctl and tests.
        .target(name: "FlowControl", dependencies: ["FlowWire", "FlowSocket"]),
        // Fast JSON coders, byte-identical to Foundation's (no dependencies).
        .target(name: "FlowJSON"),
        .target(name: "FlowKit", dependencies: ["FlowJSON"]),
        // The client library for screen processes written in Swift (blocking, poll(2)-based).
        .target(name: "ScreenKit", dependencies: ["FlowKit", "FlowKitWire", "FlowWire", "FlowSocket"]),
        .target(name: "FlowKitTesting", dependencies: ["FlowKit"]),
        // FlowKit's placement vocabulary in wire form and back: the daemon and screen hosts share it.
        .target(name: "FlowKitWire", dependencies: ["FlowKit", "FlowWire"]),
        // What an app is (root flow, placer, screen factories): apps import it without the daemon.
        .target(name: "FlowApp", dependencies: ["FlowKit"]),
        // Screen modules whose State and Output are protobuf messages (docs/flows.md, "Payloads").
        .target(
            name: "FlowProtobuf",
            dependencies: ["FlowKit", "ProtobufWire", .product(name: "SwiftProtobuf", package: "swift-protobuf")]
        ),
        .target(
            name: "FlowDaemon",
            dependencies: [
                "UVKit", "FlowWire", "FlowKit", "FlowKitWire", "FlowApp", "FlowJournal",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The embedded daemon: the whole core on fake connections and a manual clock, for tests.
        .target(
            name: "FlowDaemonTesting",
            dependencies: ["FlowDaemon", "FlowApp", "FlowKit", "FlowWire", "UVKit", .product(name: "Logging", package: "swift-log")]
        ),
        // The example apps: flows and screen modules, written as app authors should.
        // Its card screens' payloads are protobuf (proto/flowd/demo/v1, generated code in Generated/).
        .target(
            name: "DemoApps",
            dependencies: ["FlowKit", "FlowApp", "FlowProtobuf", .product(name: "SwiftProtobuf", package: "swift-protobuf")]
        ),
        // The demo's screen host (library part): cards, scripts, the terminal.
        .target(name: "DemoScreens", dependencies: ["DemoApps", "FlowKit", "ScreenKit"]),
        .executableTarget(
            name: "demo-screens",
            dependencies: ["DemoScreens", "FlowWire", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The browser side of flowd (docs/web.md): a tab as a screen host, the inspector as a debug
        // client, and the JSON messages they exchange with the page. No HTTP here.
        .target(
            name: "WebBridge",
            dependencies: [
                "DemoScreens", "DemoApps", "ScreenKit", "FlowKit", "FlowKitWire", "FlowControl", "FlowWire",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),
        // The HTTP and WebSocket server around WebBridge: token, Origin check, message limits.
        .target(
            name: "WebHost",
            dependencies: [
                "WebBridge",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Web"])),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket", condition: .when(traits: ["Web"])),
                // TLS off loopback (docs/web.md, "From another machine"): swift-nio-ssl, which Hummingbird depends on.
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: ["Web"])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "flowd-web",
            dependencies: [
                "WebHost", "FlowWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The whole flowd command line (serve, replay, describe, exit codes) over any apps: flowd and custom daemons.
        .target(
            name: "FlowdCommand",
            dependencies: [
                "FlowDaemon", "FlowApp", "FlowKit", "FlowWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "flowd", dependencies: ["FlowdCommand", "DemoApps"]),
        .executableTarget(
            name: "flowctl",
            dependencies: [
                "FlowControl", "FlowWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The benchmark's libuv baseline (C: the physical limit) and its client drivers.
        .target(name: "CBenchRelay", dependencies: ["CLibUV"]),
        .executableTarget(
            name: "flowbench",
            dependencies: [
                "CBenchRelay", "FlowWire", "FlowControl", "FlowKit", "FlowJournal",
                // `restore` writes its journals with the daemon's own core.
                "FlowDaemon", "FlowDaemonTesting", "DemoApps",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        .testTarget(name: "BenchTests", dependencies: ["FlowdTestSupport"]),
        .testTarget(name: "UVKitTests", dependencies: ["UVKit"]),
        .testTarget(
            name: "FlowWireTests",
            dependencies: ["FlowWire", "FlowWireFuzzing", .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            exclude: ["FuzzRegressions"]
        ),
        .testTarget(name: "FlowKitTests", dependencies: ["FlowKit", "FlowKitTesting", "FlowdTestSupport"]),
        .testTarget(name: "FlowJSONTests", dependencies: ["FlowJSON", "FlowdTestSupport"]),
        .testTarget(name: "FlowJournalTests", dependencies: ["FlowJournal", "FlowdTestSupport"]),
        .testTarget(
            name: "FlowDaemonTests",
            dependencies: ["FlowDaemon", "FlowDaemonTesting", "FlowApp", "FlowWire", "DemoApps", "DaemonFuzzing", "FlowWireFuzzing", "FlowdTestSupport", "FlowdCommand"],
            exclude: ["FuzzRegressions"]
        ),
        .testTarget(name: "ScreenKitTests", dependencies: ["ScreenKit", "FlowKit", "FlowKitWire", "FlowWire", "FlowSocket", "FlowdTestSupport"]),
        // What tests of real binaries share: starting flowd, running products.
        .target(name: "FlowdTestSupport", path: "Tests/FlowdTestSupport"),
        // What the fuzz targets check (docs/fuzzing.md), shared with the tests that replay their findings.
        .target(
            name: "FlowWireFuzzing",
            dependencies: ["FlowWire", .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            path: "Tests/FlowWireFuzzing"
        ),
        // The payload codecs' fuzz target (docs/fuzzing.md), shared with the tests that replay it.
        .target(
            name: "PayloadFuzzing",
            dependencies: ["DemoApps", "FlowProtobuf", "FlowWireFuzzing", .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            path: "Tests/PayloadFuzzing"
        ),
        // The embedded daemon's fuzz target (docs/fuzzing.md), shared with the tests that replay its findings.
        .target(
            name: "DaemonFuzzing",
            dependencies: ["FlowDaemon", "FlowDaemonTesting", "FlowApp", "FlowKit", "DemoApps", "FlowWire", "FlowWireFuzzing"],
            path: "Tests/DaemonFuzzing"
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["FlowWire", "FlowControl", "FlowSocket", "FlowdTestSupport", "ScreenKit", "DemoScreens", "DemoApps", "FlowJournal"]
        ),
        .testTarget(
            name: "WebHostTests",
            dependencies: ["WebHost", "WebBridge", "FlowKit", "FlowControl", "FlowWire", "FlowdTestSupport"]
        ),
        .testTarget(
            name: "DemoScreensTests",
            dependencies: [
                "DemoScreens", "DemoApps", "FlowKit", "FlowKitTesting", "FlowProtobuf", "PayloadFuzzing",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            exclude: ["FuzzRegressions"]
        ),
    ]
)

// libFuzzer executables, one per folder of Tests/Fuzz (docs/fuzzing.md), declared only for
// scripts/fuzz, which sets FLOWD_FUZZ and builds them with --sanitize=fuzzer into .build-fuzz/.
// Each depends on the library targets named *Fuzzing (where the checks live) that its sources
// import, so a small target builds without the daemon.
if Context.environment["FLOWD_FUZZ"] != nil {
    let checks = Set(package.targets.filter { $0.type == .regular && $0.name.hasSuffix("Fuzzing") }.map(\.name))
    let fuzz = Context.packageDirectory + "/Tests/Fuzz"
    for folder in ((try? FileManager.default.contentsOfDirectory(atPath: fuzz)) ?? []).sorted() {
        var isDirectory: ObjCBool = false
        let path = fuzz + "/" + folder
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue
        else { continue }
        let sources = (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }
        // `import X`, also with attributes and an access level (`@preconcurrency public import X`).
        let imported = sources.flatMap { file in
            ((try? String(contentsOfFile: path + "/" + file, encoding: .utf8)) ?? "").split(whereSeparator: \.isNewline)
                .compactMap { line -> String? in
                    let words = line.split(whereSeparator: \.isWhitespace).drop {
                        $0.hasPrefix("@") || ["public", "package", "internal", "fileprivate", "private"].contains(String($0))
                    }
                    guard words.first == "import", words.count > 1 else { return nil }
                    return String(words[words.index(after: words.startIndex)])
                }
        }
        // Corpus/: the campaign's seed inputs, kept from run to run (docs/fuzzing.md).
        let corpus = FileManager.default.fileExists(atPath: path + "/Corpus") ? ["Corpus"] : []
        package.targets.append(.executableTarget(
            name: "Fuzz" + folder, dependencies: Set(imported).intersection(checks).sorted().map { .target(name: $0) },
            path: "Tests/Fuzz/" + folder, exclude: corpus))
    }
}

// swift-docc-plugin, for scripts/docs only (it sets FLOWD_DOCS and builds into .build-docs/): an
// app's package that depends on flowd never resolves it. docs/reference.md says how to build and open
// the reference.
if Context.environment["FLOWD_DOCS"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}

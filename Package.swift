// swift-tools-version: 6.0
// docsync — iCloud Drive for Linux. See README.md for the shape of the package.
import PackageDescription

let package = Package(
    name: "docsync",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "docsyncd", targets: ["docsyncd"]),
        .executable(name: "docs-status", targets: ["docs-status"]),
        .executable(name: "docsync-demo", targets: ["docsync-demo"]),
        .executable(name: "docsync-bench", targets: ["docsync-bench"]),
        .library(name: "DocSyncCore", targets: ["DocSyncCore"]),
        .library(name: "DocSyncStorage", targets: ["DocSyncStorage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        // libinotifytools (Debian: libinotifytools0-dev, no pkg-config file).
        .systemLibrary(
            name: "CInotifyTools",
            path: "Sources/CInotifyTools",
            providers: [.apt(["libinotifytools0-dev"])]
        ),
        // Records, chunker, manifests, errors: pure logic, no I/O beyond reading a stream.
        .target(
            name: "DocSyncCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        // The StorageBackend protocol and the embedded local backend (SQLite + chunk directory).
        .target(
            name: "DocSyncStorage",
            dependencies: [
                "DocSyncCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // inotify watcher (one dedicated thread owns libinotifytools) and the pure event coalescer.
        .target(
            name: "DocSyncWatcher",
            dependencies: ["DocSyncCore", "CInotifyTools", .product(name: "Logging", package: "swift-log")]
        ),
        // Local index (GRDB), scanner and sync engine: send, fetch, apply, conflicts, retries.
        .target(
            name: "DocSyncEngine",
            dependencies: [
                "DocSyncCore", "DocSyncStorage", "DocSyncWatcher",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The control socket: request/response types, framing, server and client.
        .target(
            name: "DocSyncControl",
            dependencies: ["DocSyncCore", .product(name: "Logging", package: "swift-log")]
        ),
        // Configuration (TOML), the daemon's service group and the control handler.
        .target(
            name: "DocSyncDaemon",
            dependencies: [
                "DocSyncCore", "DocSyncStorage", "DocSyncEngine", "DocSyncControl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        .executableTarget(
            name: "docsyncd",
            dependencies: [
                "DocSyncDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "docs-status",
            dependencies: [
                "DocSyncCore", "DocSyncControl",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Backend conformance suite, fault-injecting backend, temp-folder helpers.
        .target(
            name: "DocSyncTestSupport",
            dependencies: ["DocSyncCore", "DocSyncStorage"],
            path: "Tests/DocSyncTestSupport"
        ),
        .executableTarget(
            name: "docsync-demo",
            dependencies: [
                "DocSyncCore", "DocSyncStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "docsync-bench",
            dependencies: [
                "DocSyncCore", "DocSyncStorage", "DocSyncControl", "DocSyncEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // A second process for the "two processes write one backend at once" test.
        .executableTarget(
            name: "docsync-test-writer",
            dependencies: ["DocSyncCore", "DocSyncStorage"],
            path: "Tests/DocSyncTestWriter"
        ),
        .testTarget(name: "DocSyncCoreTests", dependencies: ["DocSyncCore", "DocSyncTestSupport"]),
        .testTarget(
            name: "DocSyncStorageTests",
            dependencies: ["DocSyncCore", "DocSyncStorage", "DocSyncTestSupport", "docsync-test-writer"]
        ),
        .testTarget(name: "CInotifyToolsTests", dependencies: ["CInotifyTools"]),
        .testTarget(
            name: "DocSyncWatcherTests",
            dependencies: ["DocSyncWatcher", "DocSyncTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "DocSyncEngineTests", dependencies: ["DocSyncEngine", "DocSyncTestSupport"]),
        .testTarget(name: "DocSyncControlTests", dependencies: ["DocSyncControl", "DocSyncTestSupport"]),
        .testTarget(name: "DocSyncDaemonTests", dependencies: ["DocSyncDaemon", "DocSyncTestSupport"]),
        // Real daemons as processes on temp folders: convergence, conflicts, crashes.
        .testTarget(
            name: "DocSyncSystemTests",
            dependencies: ["DocSyncCore", "DocSyncStorage", "DocSyncControl", "DocSyncTestSupport", "docsyncd", "docs-status"]
        ),
    ]
)

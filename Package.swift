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
        .executable(name: "docsync-server", targets: ["docsync-server"]),
        .library(name: "DocSyncCore", targets: ["DocSyncCore"]),
        .library(name: "DocSyncPlatform", targets: ["DocSyncPlatform"]),
        .library(name: "DocSyncStorage", targets: ["DocSyncStorage"]),
        .library(name: "DocSyncHTTP", targets: ["DocSyncHTTP"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // libinotifytools (Debian: libinotifytools0-dev, no pkg-config file).
        .systemLibrary(
            name: "CInotifyTools",
            path: "Sources/CInotifyTools",
            providers: [.apt(["libinotifytools0-dev"])]
        ),
        // Records, chunker, manifests, errors: pure logic, no I/O beyond reading a stream, no
        // clock (callers pass the time in), no memory mapping or allocator tuning
        // (DocSyncCoreTests.CorePurityTests keeps it so).
        .target(
            name: "DocSyncCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        // What talks to the system below the core: buffer pools (mmap, huge pages), O_DIRECT
        // readers and writers, whole-file reads and writes, malloc tuning, the clock and
        // fresh record names.
        .target(
            name: "DocSyncPlatform",
            dependencies: ["DocSyncCore"]
        ),
        // The StorageBackend protocol and the embedded local backend (SQLite + chunk directory).
        .target(
            name: "DocSyncStorage",
            dependencies: [
                "DocSyncCore", "DocSyncPlatform",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the per-chunk statements (DirectStatement).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The one wire format of docsync-server (routes, bodies, chunk framing, status <-> SyncError)
        // and its client, HTTPBackend. No Hummingbird here: the daemon links this target.
        .target(
            name: "DocSyncHTTP",
            dependencies: [
                "DocSyncCore", "DocSyncStorage",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A small S3 client (path-style, SigV4 from swift-crypto) over AsyncHTTPClient: objects,
        // ranged reads, listings, multi-object deletes and multipart uploads.
        .target(
            name: "DocSyncS3",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The scale-out store of docsync-server: records, users and history in PostgreSQL,
        // chunks packed into objects of an S3-compatible store.
        .target(
            name: "DocSyncScaleOut",
            dependencies: [
                "DocSyncCore", "DocSyncPlatform", "DocSyncStorage", "DocSyncS3",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // docsync-server: the Hummingbird application (routes, users and tokens, per-user
        // LocalBackends, rate limiting, the notification stream, TLS).
        .target(
            name: "DocSyncServer",
            dependencies: [
                "DocSyncCore", "DocSyncPlatform", "DocSyncStorage", "DocSyncHTTP", "DocSyncS3", "DocSyncScaleOut",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            exclude: ["openapi.yaml"]
        ),
        .executableTarget(
            name: "docsync-server",
            dependencies: [
                "DocSyncCommandLine",
                "DocSyncCore", "DocSyncPlatform", "DocSyncServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // libfuse 3's low-level API (Debian: libfuse3-dev) and a shim for its macros and bit fields.
        .systemLibrary(
            name: "CFuse3",
            path: "Sources/CFuse3",
            pkgConfig: "fuse3",
            providers: [.apt(["libfuse3-dev"])]
        ),
        // libdbus-1 (Debian: libdbus-1-dev): the daemon's desktop notifications on the session bus.
        .systemLibrary(
            name: "CDBus",
            path: "Sources/CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
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
                "DocSyncCore", "DocSyncPlatform", "DocSyncStorage", "DocSyncWatcher",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                // A merged JSON, YAML or TOML file must still parse (StructuredTextCheck).
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // On-demand folders served through FUSE (SPEC §14): the operations over the folder's
        // content directory, the cache of partly read files, the mount.
        .target(
            name: "DocSyncFUSE",
            dependencies: [
                "DocSyncCore", "DocSyncEngine", "DocSyncWatcher", "CFuse3",
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
                "DocSyncCore", "DocSyncStorage", "DocSyncEngine", "DocSyncFUSE", "DocSyncControl", "DocSyncHTTP", "CDBus",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        // What the programs' command lines share (usage errors exit with 2, --log-level).
        .target(
            name: "DocSyncCommandLine",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "docsyncd",
            dependencies: [
                "DocSyncCommandLine",
                "DocSyncCore", "DocSyncPlatform", "DocSyncDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "docs-status",
            dependencies: [
                "DocSyncCommandLine",
                "DocSyncCore", "DocSyncPlatform", "DocSyncControl",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Backend conformance suite, fault-injecting backend, temp-folder helpers.
        .target(
            name: "DocSyncTestSupport",
            dependencies: [
                "DocSyncCore", "DocSyncPlatform", "DocSyncStorage", "DocSyncHTTP", "DocSyncEngine", "DocSyncS3", "DocSyncScaleOut", "DocSyncServer",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/DocSyncTestSupport"
        ),
        .executableTarget(
            name: "docsync-demo",
            dependencies: [
                "DocSyncCore", "DocSyncPlatform", "DocSyncStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "docsync-bench",
            dependencies: [
                "DocSyncCore", "DocSyncPlatform", "DocSyncStorage", "DocSyncControl", "DocSyncEngine", "DocSyncScaleOut", "DocSyncHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // A second process for the "two processes write one backend at once" test.
        .executableTarget(
            name: "docsync-test-writer",
            dependencies: ["DocSyncCore", "DocSyncPlatform", "DocSyncStorage"],
            path: "Tests/DocSyncTestWriter"
        ),
        // Fixtures/: the golden bytes of each record encoding, read by path (not resources).
        .testTarget(name: "DocSyncCoreTests", dependencies: ["DocSyncCore", "DocSyncPlatform", "DocSyncTestSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "DocSyncPlatformTests", dependencies: ["DocSyncCore", "DocSyncPlatform", "DocSyncTestSupport"]),
        .testTarget(
            name: "DocSyncStorageTests",
            dependencies: ["DocSyncCore", "DocSyncPlatform", "DocSyncStorage", "DocSyncTestSupport", "docsync-test-writer",
                           .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The HTTP backend against real docsync-server processes on loopback ports, and the
        // wire format's pure logic.
        .testTarget(
            name: "DocSyncHTTPTests",
            dependencies: [
                "DocSyncCore", "DocSyncPlatform", "DocSyncStorage", "DocSyncHTTP", "DocSyncServer", "DocSyncTestSupport", "docsync-server",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "CInotifyToolsTests", dependencies: ["CInotifyTools"]),
        // Against the real S3 store `make test` starts (config/services/start-s3.sh).
        .testTarget(
            name: "DocSyncS3Tests",
            dependencies: ["DocSyncS3", "DocSyncTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        // The scale-out store against the real PostgreSQL and S3 `make test` starts.
        .testTarget(
            name: "DocSyncScaleOutTests",
            dependencies: [
                "DocSyncCore", "DocSyncPlatform", "DocSyncStorage", "DocSyncS3", "DocSyncScaleOut", "DocSyncTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "DocSyncWatcherTests",
            dependencies: ["DocSyncWatcher", "DocSyncTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "DocSyncEngineTests", dependencies: ["DocSyncEngine", "DocSyncPlatform", "DocSyncTestSupport"]),
        // Real mounts of on-demand folders (FUSE), with real engines on the embedded store.
        .testTarget(name: "DocSyncFUSETests", dependencies: ["DocSyncFUSE", "DocSyncEngine", "DocSyncTestSupport"]),
        // Seeded multi-device simulations of whole engines in memory (DOCSYNC_SEED=N replays one).
        .testTarget(
            name: "DocSyncSimulationTests",
            dependencies: [
                "DocSyncCore", "DocSyncPlatform", "DocSyncStorage", "DocSyncEngine", "DocSyncWatcher", "DocSyncTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "DocSyncControlTests", dependencies: ["DocSyncControl", "DocSyncPlatform", "DocSyncTestSupport"]),
        .testTarget(name: "DocSyncDaemonTests", dependencies: ["DocSyncDaemon", "DocSyncTestSupport"]),
        // Real daemons as processes on temp folders: convergence, conflicts, crashes; a
        // tampering HTTP relay in front of docsync-server (Hummingbird, AsyncHTTPClient); the
        // scale-out store searched (DocSyncScaleOut, DocSyncS3).
        .testTarget(
            name: "DocSyncSystemTests",
            dependencies: [
                "DocSyncCore", "DocSyncStorage", "DocSyncControl", "DocSyncHTTP", "DocSyncS3", "DocSyncScaleOut", "DocSyncTestSupport",
                "DocSyncFUSE", "docsyncd", "docs-status", "docsync-server",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ]
)

import DocSyncCore
import DocSyncServer
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Synchronization
import Testing

@Suite struct AccessTokenTests {
    @Test func tokensAre32RandomBytesInBase64URL() {
        let tokens = (0 ..< 50).map { _ in AccessToken.generate() }
        #expect(Set(tokens).count == tokens.count)
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for token in tokens {
            #expect(token.count == 43, "32 bytes are 43 base64url characters without padding")
            #expect(token.allSatisfy { alphabet.contains($0) })
        }
    }

    @Test func theHashIsSHA256HexAndComparesInConstantTime() {
        let hash = AccessToken.hash("secret")
        #expect(hash == "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b")
        #expect(AccessToken.constantTimeEquals(hash, AccessToken.hash("secret")))
        #expect(!AccessToken.constantTimeEquals(hash, AccessToken.hash("secreT")))
        #expect(!AccessToken.constantTimeEquals(hash, String(hash.dropLast())))
    }
}

@Suite struct RateLimiterTests {
    @Test func aBucketAllowsItsCapacityThenRefillsAtItsRate() {
        var bucket = TokenBucket(capacity: 3, ratePerSecond: 2, now: 0)
        #expect(bucket.take(now: 0) == nil)
        #expect(bucket.take(now: 0) == nil)
        #expect(bucket.take(now: 0) == nil)
        let wait = bucket.take(now: 0)
        #expect(wait == 0.5, "one token comes back after 1/rate seconds")
        #expect(bucket.take(now: 0.25) == 0.25)
        #expect(bucket.take(now: 0.5) == nil)
        #expect(bucket.take(now: 100) == nil)
        #expect(bucket.tokens == 2, "refilling stops at the capacity")
    }

    @Test func eachTokenHasItsOwnBucket() {
        let now = Mutex(0.0)
        let limiter = RateLimiter(ratePerSecond: 1, burst: 2, clock: { now.withLock { $0 } })
        #expect(limiter.admit("a") == nil)
        #expect(limiter.admit("a") == nil)
        #expect(limiter.admit("a") != nil)
        #expect(limiter.admit("b") == nil, "another token is not throttled by the first")
        now.withLock { $0 = 1 }
        #expect(limiter.admit("a") == nil)
    }

    @Test func theDefaultDoesNotThrottleAnInitialSync() {
        let limiter = RateLimiter(ratePerSecond: RateLimiter.defaultRatePerSecond, clock: { 0 })
        // An initial sync of 10,000 files: 25 modify batches, ~20 chunk batches, lookups.
        for _ in 0 ..< 500 { #expect(limiter.admit("device") == nil) }
    }
}

@Suite struct ServerConfigurationTests {
    @Test func listenAddressesParseAndKnowLoopback() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:8787") == ListenAddress(host: "127.0.0.1", port: 8787))
        #expect(try ListenAddress(parsing: "[::1]:0") == ListenAddress(host: "::1", port: 0))
        #expect(try ListenAddress(parsing: "localhost:1").isLoopback)
        #expect(try ListenAddress(parsing: "127.3.4.5:1").isLoopback)
        #expect(try ListenAddress(parsing: "[::1]:1").isLoopback)
        #expect(try !ListenAddress(parsing: "0.0.0.0:1").isLoopback)
        #expect(try !ListenAddress(parsing: "192.168.1.2:1").isLoopback)
        #expect(try !ListenAddress(parsing: "127.example.com:1").isLoopback)
        for bad in ["8787", "host:", ":80", "host:99999", "[::1]80", "a:b:c"] {
            #expect(throws: ServerConfigurationError.self, "\(bad)") { try ListenAddress(parsing: bad) }
        }
    }

    @Test func flagsOverrideTheFileAndPlainHTTPStaysOnLoopback() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("server.toml")
        try """
            data = "/srv/docsync"
            listen = "127.0.0.1:9000"
            rate_limit = 50
            """.write(to: file, atomically: true, encoding: .utf8)
        let fromFile = try ServerConfiguration.load(file: file.path, overrides: .init())
        #expect(fromFile.dataDirectory?.path == "/srv/docsync")
        #expect(fromFile.listen.port == 9000)
        #expect(fromFile.rateLimit == 50)
        let overridden = try ServerConfiguration.load(file: file.path, overrides: .init(data: "/tmp/other", listen: "127.0.0.1:0", rateLimit: 5))
        #expect(overridden.dataDirectory?.path == "/tmp/other" && overridden.listen.port == 0 && overridden.rateLimit == 5)

        do {
            _ = try ServerConfiguration.load(file: nil, overrides: .init(data: "/d", listen: "0.0.0.0:8787"))
            Issue.record("plain HTTP on 0.0.0.0 was accepted")
        } catch {
            #expect(error.message.contains("--tls-cert"), "the error says what to do: \(error)")
        }
        #expect(throws: ServerConfigurationError.self) {
            try ServerConfiguration.load(file: nil, overrides: .init(data: "/d", listen: "0.0.0.0:8787", tlsCertificate: "/c.pem"))
        }
        let tls = try ServerConfiguration.load(file: nil, overrides: .init(data: "/d", listen: "0.0.0.0:8787", tlsCertificate: "/c.pem", tlsKey: "/k.pem"))
        #expect(tls.usesTLS)
        #expect(throws: ServerConfigurationError.self) { try ServerConfiguration.load(file: nil, overrides: .init()) }
    }

    @Test func unknownKeysAndWrongTypesNameTheLine() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("server.toml")
        try "data = \"/d\"\nlisten_on = \"x\"\n".write(to: file, atomically: true, encoding: .utf8)
        do {
            _ = try ServerConfiguration.load(file: file.path, overrides: .init())
            Issue.record("an unknown key was accepted")
        } catch {
            #expect(error.message.contains("server.toml:2") && error.message.contains("listen_on"), "\(error)")
        }
        try "data = 7\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: ServerConfigurationError.self) { try ServerConfiguration.load(file: file.path, overrides: .init()) }
    }

    @Test func storeSettingsComeFromTheFileAndTheFlags() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("server.toml")
        try "data = \"/d\"\ndeleted_retention = \"7d\"\ngc_interval = 3600\n".write(to: file, atomically: true, encoding: .utf8)
        let fromFile = try ServerConfiguration.load(file: file.path, overrides: .init())
        #expect(fromFile.storeSettings == StoreSettings(deletedRetention: 604_800, collectionInterval: 3600))
        let flagged = try ServerConfiguration.load(file: file.path, overrides: .init(store: ["gc_grace": "10m", "deleted_retention": "2s"]))
        #expect(flagged.storeSettings == StoreSettings(deletedRetention: 2, collectionInterval: 3600, collectionGrace: 600))
        try "data = \"/d\"\n\ngc_grace = \"a while\"\n".write(to: file, atomically: true, encoding: .utf8)
        do {
            _ = try ServerConfiguration.load(file: file.path, overrides: .init())
            Issue.record("a bad duration was accepted")
        } catch {
            #expect(error.message.contains("server.toml:3") && error.message.contains("gc_grace"), "\(error)")
        }
        do {
            _ = try ServerConfiguration.load(file: nil, overrides: .init(data: "/d", store: ["deleted_retention": "-1d"]))
            Issue.record("a bad flag was accepted")
        } catch {
            #expect(error.message.hasPrefix("--deleted-retention:"), "\(error)")
        }
    }

    @Test func aStorageTableNamesTheScaleOutStoreInsteadOfADataDirectory() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("server.toml")
        try """
            listen = "127.0.0.1:9000"
            [storage]
            records = "postgres://docsync@db.internal:5432/docsync"
            chunks = "s3://docsync-chunks?endpoint=http://s3.internal:8480&region=us-east-1"
            credentials = "s3.credentials"
            """.write(to: file, atomically: true, encoding: .utf8)
        let loaded = try ServerConfiguration.load(file: file.path, overrides: .init())
        #expect(loaded.dataDirectory == nil)
        #expect(loaded.scaleOut?.records == "postgres://docsync@db.internal:5432/docsync")
        #expect(loaded.scaleOut?.chunks.hasPrefix("s3://docsync-chunks?") == true)
        #expect(loaded.scaleOut?.credentials?.hasSuffix("/s3.credentials") == true, "a relative path is taken from the current directory")
        let flagged = try ServerConfiguration.load(file: nil, overrides: .init(records: "postgres://a@b/c", chunks: "s3://x"))
        #expect(flagged.scaleOut == ScaleOutLocation(records: "postgres://a@b/c", chunks: "s3://x"))
        // Half a scale-out store, an unknown key in the table, and neither store at all are refused.
        for (text, expected) in [("[storage]\nrecords = \"postgres://a@b/c\"\n", "chunks"), ("[storage]\nbucket = \"x\"\n", "bucket"),
                                 ("listen = \"127.0.0.1:1\"\n", "data directory")] {
            try text.write(to: file, atomically: true, encoding: .utf8)
            do {
                _ = try ServerConfiguration.load(file: file.path, overrides: .init())
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.message.contains(expected), "\(error)")
            }
        }
    }

    @Test func theExampleFileDocumentsEveryKeyAndLoads() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("config/docsync-server.example.toml")
        let text = try String(contentsOf: example, encoding: .utf8)
        for key in ServerConfiguration.keys where key != "storage" { #expect(text.contains(key + " ="), "\(key) is documented") }
        #expect(text.contains("[storage]"))
        for key in ServerConfiguration.storageKeys { #expect(text.contains(key + " ="), "\(key) of [storage] is documented") }
        #expect(try ServerConfiguration.load(file: example.path, overrides: .init()).listen == .default)
    }
}

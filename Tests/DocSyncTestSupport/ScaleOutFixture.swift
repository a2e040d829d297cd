import DocSyncCore
import DocSyncS3
import DocSyncScaleOut
import DocSyncStorage
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Testing

/// A scale-out store of its own for one test: a fresh database on the PostgreSQL server and
/// a fresh bucket on the S3 store that `make test` starts, both removed by `close()`.
public final class ScaleOutTestStorage: Sendable {
    public let database: PostgresLocation
    public let bucket: S3Configuration
    public let settings: StoreSettings
    private let admin: PostgresLocation
    private let stores = Synchronized<[ScaleOutStore]>([])

    public static let logger = Logger(label: "test.scale-out")

    private init(admin: PostgresLocation, database: PostgresLocation, bucket: S3Configuration, settings: StoreSettings) {
        self.admin = admin
        self.database = database
        self.bucket = bucket
        self.settings = settings
    }

    /// Makes the database and the bucket.
    public static func make(settings: StoreSettings = StoreSettings(collectionInterval: 0)) async throws -> ScaleOutTestStorage {
        let admin = try PostgresLocation(url: try TestServices.postgresURL())
        let name = "docsync_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        try await admin.executeAlone("CREATE DATABASE \(name)", logger: logger)
        let s3 = try TestServices.s3()
        let bucket = try S3Configuration(endpoint: URL(string: s3.endpoint)!, region: s3.region, bucket: "docsync-test-" + String(name.suffix(16)),
                                     accessKey: s3.accessKey, secretKey: s3.secretKey)
        try await S3Client(configuration: bucket, logger: logger).createBucket()
        return ScaleOutTestStorage(admin: admin, database: admin.with(database: String(name)), bucket: bucket, settings: settings)
    }

    /// Opens another instance of the store (as another `docsync-server` process would).
    public func open() async throws -> ScaleOutStore {
        let store = try await ScaleOutStore.open(database: database, bucket: bucket, settings: settings, maximumConnections: 4, logger: Self.logger)
        stores.update { $0.append(store) }
        return store
    }

    /// The `docsync-server` flags that name this store, and the environment with its S3 keys.
    public var serverArguments: [String] {
        ["--records", database.url,
         "--chunks", "s3://\(bucket.bucket)?endpoint=\(bucket.endpoint.absoluteString)&region=\(bucket.region)"]
    }

    public var serverEnvironment: [String: String] {
        ["S3_ACCESS_KEY": bucket.accessKey, "S3_SECRET_KEY": bucket.secretKey]
    }

    /// Shuts every store opened down and removes the database and the bucket with everything in it.
    public func close() async {
        for store in stores.value { await store.shutdown() }
        let objects = S3Client(configuration: bucket, logger: Self.logger)
        if let keys = try? await objects.listAllObjects(prefix: "").map(\.key), !keys.isEmpty { try? await objects.deleteObjects(keys) }
        try? await objects.deleteBucket()
        let name = database.database
        try? await admin.executeAlone("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", logger: Self.logger)
    }
}

/// The scale-out store as a conformance fixture: one account of a fresh store; another
/// client is the same account through another instance.
public struct ScaleOutFixtureFactory: BackendFixtureFactory {
    public init() {}

    public func makeFixture(settings: StoreSettings) async throws -> BackendFixture {
        var settings = settings
        settings.collectionInterval = 0
        let storage = try await ScaleOutTestStorage.make(settings: settings)
        do {
            let store = try await storage.open()
            let account = try #require(try await store.accountID(named: "alice", create: true))
            let backend = store.backend(account: account)
            return BackendFixture(
                backend: backend,
                openAnotherClient: { try await storage.open().backend(account: account) },
                corruptChunk: { digest in try await corrupt(digest, of: backend, in: storage) },
                compactAllTombstones: { try await ScaleOutCollector(store: store).compactTombstones(olderThan: -1) },
                collectGarbage: { try await collectFully(store) },
                close: { await storage.close() }
            )
        } catch {
            await storage.close()
            throw error
        }
    }
}

/// Runs one whole collection, waiting (at most 30 s) while another instance collects.
public func collectFully(_ store: ScaleOutStore) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while true {
        let report = try await ScaleOutCollector(store: store).collect()
        if let reason = report.stoppedBecause { throw CollectionFailure(description: "the collection stopped: \(reason)") }
        if report.ran { return }
        guard ContinuousClock.now < deadline else { throw CollectionFailure(description: "another collector held the store for 30 s") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// Flips the first byte of a chunk inside its pack object.
public func corrupt(_ digest: SHA256Digest, of backend: ScaleOutBackend, in storage: ScaleOutTestStorage) async throws {
    guard let place = try await backend.places(of: [digest])[digest] else { return }
    let objects = S3Client(configuration: storage.bucket, logger: ScaleOutTestStorage.logger)
    var bytes = try await objects.getObject(place.objectKey)
    let index = bytes.readerIndex + Int(place.offset)
    bytes.setInteger(bytes.getInteger(at: index, as: UInt8.self)! ^ 0xff, at: index)
    try await objects.putObject(place.objectKey, bytes)
}

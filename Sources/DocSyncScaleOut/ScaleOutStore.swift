import AsyncHTTPClient
import DocSyncCore
import DocSyncS3
import DocSyncStorage
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// docsync-server's store past one machine: accounts, tokens, zones, records, history and
/// the chunk index in PostgreSQL; chunks packed into objects of an S3-compatible bucket.
/// Any number of instances (processes) may use one database and one bucket at once: every
/// decision is a PostgreSQL transaction, nothing is remembered between requests but caches
/// of what never changes, and change notifications cross instances by `LISTEN/NOTIFY`.
///
/// `open` connects, applies the schema's migrations (one instance at a time), creates the
/// bucket when missing and starts listening; `shutdown` ends the notification streams and closes the connections. Each
/// user's data is reached through `backend(account:)`, a `StorageBackend` that can touch
/// that account's rows and objects only.
public final class ScaleOutStore: Sendable {
    public let database: PostgresLocation
    public let bucket: S3Configuration
    /// Retention of deleted records and replaced versions, the collection's grace period.
    public let settings: StoreSettings
    /// What the store keeps how long (from `settings`; tombstones for the default 90 days).
    public var retention: StoreRetention { StoreRetention(settings: settings) }
    let client: PostgresClient
    let objects: S3Client
    let notifier: ScaleOutNotifier
    let logger: Logger
    private let tasks = Mutex<[Task<Void, Never>]>([])

    private init(database: PostgresLocation, bucket: S3Configuration, settings: StoreSettings, maximumConnections: Int, logger: Logger) {
        self.database = database
        self.bucket = bucket
        self.settings = settings
        self.logger = logger
        var configuration = database.clientConfiguration
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(5)
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        objects = S3Client(configuration: bucket, logger: logger)
        notifier = ScaleOutNotifier(logger: logger)
    }

    /// Migrates the schema of `database` (on a connection of its own, one instance at a
    /// time), starts the connection pool, makes sure of the bucket, and starts listening for
    /// other instances' changes. Throws `serviceUnavailable` when the database cannot be
    /// reached, naming it.
    ///
    /// The pool's `run()` is running before anything is asked of it: no query waits on it,
    /// and postgres-nio has nothing to warn about.
    public static func open(
        database: PostgresLocation, bucket: S3Configuration, settings: StoreSettings = StoreSettings(),
        maximumConnections: Int = 20, logger: Logger = Logger(label: "docsync.storage.scale-out")
    ) async throws(SyncError) -> ScaleOutStore {
        do {
            try await ScaleOutMigrator.migrate(database, logger: logger)
        } catch {
            throw SyncError(error.code, "\(database): \(error.message)")
        }
        let store = ScaleOutStore(database: database, bucket: bucket, settings: settings, maximumConnections: maximumConnections, logger: logger)
        store.startPool()
        do {
            try await store.ensureBucket()
        } catch {
            await store.shutdown()
            throw error
        }
        let notifier = store.notifier, client = store.client
        store.tasks.withLock { $0.append(Task { await notifier.run(client) }) }
        return store
    }

    /// Starts the pool's `run()`, in a task that begins at once, on this thread: `run()`
    /// marks the client as running before its first suspension, so that is done when this
    /// returns (a plain `Task` might not have begun when the first query leases a
    /// connection). Called from `open`, which is not isolated to any actor, so the task's
    /// executor is the caller's and it does start synchronously.
    private func startPool() {
        let client = self.client
        let running = Task.immediate { await client.run() }
        tasks.withLock { $0.append(running) }
    }

    /// Creates the bucket when it does not exist yet (idempotent: instances starting at once
    /// may all try). A store whose credentials may not create buckets needs it made first.
    private func ensureBucket() async throws(SyncError) {
        do {
            if try await objects.bucketExists() { return }
            try await objects.createBucket()
            logger.info("created the bucket", metadata: ["bucket": "\(bucket)"])
        } catch {
            throw SyncError(error.isTransient ? .serviceUnavailable : .invalidArguments,
                            "the bucket \(bucket) cannot be used (\(error.message)); create it, or give credentials that may")
        }
    }

    /// Ends every notification stream and closes the database connections. Calls in
    /// flight fail; a store is not used after this.
    public func shutdown() async {
        notifier.finishAll()
        let running = tasks.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        for task in running.reversed() { task.cancel() }
        for task in running { await task.value }
    }

    /// Whether the store can serve: the database answers and change notifications arrive.
    public func isReady() async -> Bool {
        guard notifier.isListening else { return false }
        do {
            _ = try await client.query("SELECT 1", logger: logger)
            return true
        } catch {
            return false
        }
    }

    /// The backend of the account `account`: its zones, records and chunks.
    public func backend(account: Int64) -> ScaleOutBackend {
        ScaleOutBackend(store: self, account: account)
    }

    /// The id of the account named `name`, creating the account when `create` says so;
    /// `nil` when there is no such account and `create` is false.
    public func accountID(named name: String, create: Bool = false) async throws(SyncError) -> Int64? {
        try await withConnection("find the account \(name)") { connection in
            if create {
                try await connection.statement("""
                    INSERT INTO account (name, created) VALUES (\(name), extract(epoch FROM now())) ON CONFLICT (name) DO NOTHING
                    """, logger: logger)
            }
            let rows = try await connection.statement("SELECT id FROM account WHERE name = \(name)", logger: logger)
            for try await id in rows.decode(Int64.self) { return id }
            return nil
        }
    }

    /// Runs `body` on a pooled connection, mapping every failure to a `SyncError` about `what`.
    func withConnection<T: Sendable>(_ what: @autoclosure () -> String, _ body: (PostgresConnection) async throws -> T) async throws(SyncError) -> T {
        do {
            return try await client.withConnection(body)
        } catch {
            throw PostgresFailure.map(error, what())
        }
    }
}

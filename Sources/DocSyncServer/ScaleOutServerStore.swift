import DocSyncCore
import DocSyncScaleOut
import DocSyncStorage
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// docsync-server's store on PostgreSQL and an S3 bucket (`ScaleOutStore`), shared by any
/// number of instances. An instance remembers only what never changes: which token hash
/// belongs to which account (tokens are never revoked, `AccountDirectory`) and each user's
/// account id.
/// Quotas are read afresh for every request that needs them, and usage comes from the
/// accounts' counters in PostgreSQL, so limits hold across instances.
public final class ScaleOutServerStore: ServerStore {
    public let store: ScaleOutStore
    public let accounts: AccountDirectory<ScaleOutStore>
    private let accountIDs = Mutex<[String: Int64]>([:])

    public init(store: ScaleOutStore) {
        self.store = store
        accounts = AccountDirectory(rows: store)
    }

    public func backend(for user: String) async throws(SyncError) -> any ServerStorageBackend {
        try await scaleOutBackend(for: user)
    }

    /// `user`'s backend; `notAuthenticated` when the account is gone.
    func scaleOutBackend(for user: String) async throws(SyncError) -> ScaleOutBackend {
        if let id = accountIDs.withLock({ $0[user] }) { return store.backend(account: id) }
        guard let id = try await store.accountID(named: user) else {
            throw SyncError(.notAuthenticated, "there is no account \(user.debugDescription) any more; ask the server's administrator")
        }
        accountIDs.withLock { $0[user] = id }
        return store.backend(account: id)
    }

    public func storedBytes(of user: String) async throws(SyncError) -> Int64 {
        try await scaleOutBackend(for: user).storedChunkBytes()
    }

    /// With `user`, one collection of that user's account only (its report named by the
    /// user; `invalidArguments` when there is no such user), as the embedded store collects
    /// one user's storage; without, one collection covering every account, named "all users".
    public func collect(user: String?, waiting seconds: Double) async throws(SyncError) -> [(user: String, report: GarbageCollectionReport?)] {
        let collector = ScaleOutCollector(store: store)
        guard let user else {
            return [("all users", try await collectWaiting(seconds) { () throws(SyncError) in try await collector.collect() })]
        }
        guard let account = try await store.accountID(named: user) else {
            throw SyncError(.invalidArguments, "there is no user \(user.debugDescription)")
        }
        return [(user, try await collectWaiting(seconds) { () throws(SyncError) in try await collector.collect(account: account) })]
    }

    public func collectDue(interval: TimeInterval, logger: Logger) async {
        do {
            if let last = try await store.lastCollection(), Date().timeIntervalSince(last) < interval { return }
            let report = try await ScaleOutCollector(store: store).collect()
            ServerMetrics.record(report)
            if report.ran { logger.info("collected", metadata: ["summary": "\(report.summary)"]) }
        } catch {
            logger.error("collection failed", metadata: ["error": "\(error)"])
        }
    }

    public func rateLimiter(ratePerSecond: Double) -> any RequestAdmission {
        SharedRateLimiter(store: store, ratePerSecond: ratePerSecond, logger: Logger(label: "docsync.server.rate-limit"))
    }

    public func releaseIdle(for idle: Duration) {}

    public func isReady() async -> Bool { await store.isReady() }

    public func shutdown() async { await store.shutdown() }
}

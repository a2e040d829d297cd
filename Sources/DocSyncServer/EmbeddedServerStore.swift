import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import ServiceLifecycle

/// The one-machine store of docsync-server: `users.sqlite` (`UserStore`) and a
/// `LocalBackend` per user under `users/<name>/` (`UserBackends`), in the data directory.
public struct EmbeddedServerStore: ServerStore {
    public let accounts: AccountDirectory<UserStore>
    public let backends: UserBackends

    public init(dataDirectory: URL, settings: StoreSettings) throws(SyncError) {
        accounts = AccountDirectory(rows: try UserStore(dataDirectory: dataDirectory))
        backends = UserBackends(dataDirectory: dataDirectory, settings: settings)
    }

    public func backend(for user: String) async throws(SyncError) -> any ServerStorageBackend { try backends.backend(for: user) }

    public func storedBytes(of user: String) async throws(SyncError) -> Int64 {
        guard backends.hasStore(user) else { return 0 }
        return try await backends.backend(for: user).storedChunkBytes()
    }

    public func collect(user: String?, waiting seconds: Double) async throws(SyncError) -> [(user: String, report: GarbageCollectionReport?)] {
        let all = try await users().map(\.name)
        if let user, !all.contains(user) { throw SyncError(.invalidArguments, "there is no user \(user.debugDescription)") }
        var reports: [(user: String, report: GarbageCollectionReport?)] = []
        for name in user.map({ [$0] }) ?? all {
            guard backends.hasStore(name) else {
                reports.append((name, nil))
                continue
            }
            let backend = try backends.backend(for: name)
            reports.append((name, try await collectWaiting(seconds) { () throws(SyncError) in try await backend.collectGarbage() }))
        }
        return reports
    }

    /// Users are collected one after another, each once `interval` has passed since its
    /// store's last collection (by this server, `docsync-server gc` or anyone else); a
    /// store another collector is working on is left for the next round.
    public func collectDue(interval: TimeInterval, logger: Logger) async {
        let names: [String]
        do { names = try await users().map(\.name) } catch {
            logger.error("cannot list users to collect", metadata: ["error": "\(error)"])
            return
        }
        for user in names where !Task.isShuttingDownGracefully && backends.hasStore(user) {
            do {
                let backend = try backends.backend(for: user)
                if let last = try backend.lastCollection(), Date().timeIntervalSince(last) < interval { continue }
                let report = try await backend.collectGarbage()
                ServerMetrics.record(report)
                logger.info("collected", metadata: ["user": "\(user)", "summary": "\(report.summary)"])
            } catch {
                logger.error("collection failed", metadata: ["user": "\(user)", "error": "\(error)"])
            }
        }
    }

    public func rateLimiter(ratePerSecond: Double) -> any RequestAdmission { RateLimiter(ratePerSecond: ratePerSecond) }
    public func releaseIdle(for idle: Duration) { backends.releaseIdle(for: idle) }
    public func isReady() async -> Bool { true }
    public func shutdown() async {}
}

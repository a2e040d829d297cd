import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import Synchronization

/// Each user's `LocalBackend`, in `DATA/users/<name>/`, opened on first use (with the
/// server's store settings) and kept open.
///
/// A user's backend is found only by the name the token authenticated, so one user's
/// zones, records and chunks cannot be reached by another's requests.
///
/// An open backend keeps its database caches (up to 32 MB after a large sync) until
/// `releaseIdle(for:)` frees those of the users no request has asked for meanwhile, so a
/// server's memory follows its active users rather than every user since it started.
public final class UserBackends: Sendable {
    private struct Entry {
        let backend: LocalBackend
        var lastUse: ContinuousClock.Instant
        var released = false
    }

    public let dataDirectory: URL
    /// The settings every user's store is opened with (docsync-server's `deleted_retention`,
    /// `gc_interval`, `gc_grace`); the server collects on its own schedule (`CollectionService`).
    public let settings: StoreSettings
    private let opened = Mutex<[String: Entry]>([:])
    private let logger = Logger(label: "docsync.server.storage")

    public init(dataDirectory: URL, settings: StoreSettings = StoreSettings()) {
        self.dataDirectory = dataDirectory
        self.settings = settings
    }

    /// How a user's store is opened: with the server's settings, without a schedule of its own.
    public var options: LocalBackend.Options { LocalBackend.Options(settings: settings, collectsOnSchedule: false) }

    /// The directory of `user`'s backend.
    public func directory(of user: String) -> URL {
        dataDirectory.appendingPathComponent("users", isDirectory: true).appendingPathComponent(user, isDirectory: true)
    }

    /// Whether `user` has a store yet (it is created by the first request that needs it).
    public func hasStore(_ user: String) -> Bool {
        FileManager.default.fileExists(atPath: directory(of: user).appendingPathComponent("records.sqlite").path)
    }

    /// `user`'s backend, opened (and created) if needed.
    public func backend(for user: String) throws(SyncError) -> LocalBackend {
        if let backend = opened.withLock({ Self.use(user, in: &$0) }) { return backend }
        precondition(AccountRules.problem(withUserName: user) == nil, "user names are validated before they name a directory")
        let backend = try LocalBackend(directory: directory(of: user), options: options)
        logger.info("opened storage", metadata: ["user": "\(user)"])
        return opened.withLock { opened in
            if let existing = Self.use(user, in: &opened) { return existing }
            opened[user] = Entry(backend: backend, lastUse: .now)
            return backend
        }
    }

    /// Frees the caches of the backends no `backend(for:)` asked for in the last `idle`
    /// (once per idle spell: a backend asked for again is freed again when next idle).
    /// Returns those backends' users, sorted. Requests still running, a notification
    /// stream say, are not disturbed: each backend lets go once its accesses are over.
    @discardableResult
    public func releaseIdle(for idle: Duration, now: ContinuousClock.Instant = .now) -> [String] {
        let idleOnes = opened.withLock { opened in
            var found: [(user: String, backend: LocalBackend)] = []
            for (user, entry) in opened where !entry.released && now - entry.lastUse >= idle {
                opened[user]?.released = true
                found.append((user, entry.backend))
            }
            return found
        }
        for (user, backend) in idleOnes {
            backend.releaseMemory()
            logger.debug("released the caches of idle storage", metadata: ["user": "\(user)"])
        }
        return idleOnes.map(\.user).sorted()
    }

    /// The backend of `user` if it is open, noted as used now.
    private static func use(_ user: String, in opened: inout [String: Entry]) -> LocalBackend? {
        guard let backend = opened[user]?.backend else { return nil }
        opened[user]?.lastUse = .now
        opened[user]?.released = false
        return backend
    }
}

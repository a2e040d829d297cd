import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import Synchronization

/// Each user's `LocalBackend`, in `DATA/users/<name>/`, opened on first use and kept open.
///
/// A user's backend is found only by the name the token authenticated, so one user's
/// zones, records and chunks cannot be reached by another's requests.
public final class UserBackends: Sendable {
    public let dataDirectory: URL
    private let opened = Mutex<[String: LocalBackend]>([:])
    private let logger = Logger(label: "docsync.server.storage")

    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }

    /// The directory of `user`'s backend.
    public func directory(of user: String) -> URL {
        dataDirectory.appendingPathComponent("users", isDirectory: true).appendingPathComponent(user, isDirectory: true)
    }

    /// `user`'s backend, opened (and created) if needed.
    public func backend(for user: String) throws(SyncError) -> LocalBackend {
        if let backend = opened.withLock({ $0[user] }) { return backend }
        precondition(UserStore.problem(withUserName: user) == nil, "user names are validated before they name a directory")
        let backend = try LocalBackend(directory: directory(of: user))
        logger.info("opened storage", metadata: ["user": "\(user)"])
        return opened.withLock { opened in
            if let existing = opened[user] { return existing }
            opened[user] = backend
            return backend
        }
    }
}

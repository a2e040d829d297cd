import DocSyncCore
import Foundation
import GRDB

extension UserStore {
    /// One account as stored: what `docsync-server migrate` copies (token hashes, never tokens).
    public struct ExportedAccount: Sendable, Hashable {
        public var name: String
        /// Seconds since 1970.
        public var created: Double
        public var quotaBytes: Int64?
        public var tokens: [ExportedToken]
    }

    public struct ExportedToken: Sendable, Hashable {
        public var hash: String
        public var created: Double
        public var device: String?
    }

    /// Every account with its token hashes, sorted by name.
    public func exportAccounts() throws(SyncError) -> [ExportedAccount] {
        do {
            return try pool.read { db in
                var tokens: [String: [ExportedToken]] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT hash, user, created, device FROM token ORDER BY created, hash") {
                    tokens[row["user"], default: []].append(ExportedToken(hash: row["hash"], created: row["created"], device: row["device"]))
                }
                return try Row.fetchAll(db, sql: "SELECT name, created, quotaBytes FROM user ORDER BY name").map { row in
                    ExportedAccount(name: row["name"], created: row["created"], quotaBytes: row["quotaBytes"], tokens: tokens[row["name"]] ?? [])
                }
            }
        } catch {
            throw SyncError(.internalError, "cannot read the user store \(path.path) (\(error))")
        }
    }
}

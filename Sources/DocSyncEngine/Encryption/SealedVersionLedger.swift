import DocSyncCore
import GRDB

/// The highest sealed version of each record of an encrypted folder that this device has
/// seen in a fetched record or sent itself (SPEC §13), kept in the index (`sealedVersion`,
/// migration v17) by record name, also after the item is gone.
///
/// A caller may rely on: `seen` never decreases for a name (`note` keeps the larger of the
/// stored and the given version), and a version noted has been committed to the index when
/// `note` returns — so a save sealed as `nextVersions` is never sealed with the same number
/// twice, even when its answer is lost. Safe to use from any task.
struct SealedVersionLedger: Sendable {
    let index: LocalIndex

    /// The highest version seen or sent for each of `names` that has one.
    func seen(_ names: some Sequence<String>) throws(SyncError) -> [String: UInt64] {
        try read { db in
            let statement = try db.cachedStatement(sql: "SELECT version FROM sealedVersion WHERE recordName = ?")
            var found: [String: UInt64] = [:]
            for name in names {
                if let version = try Int64.fetchOne(statement, arguments: [name]) { found[name] = UInt64(max(0, version)) }
            }
            return found
        }
    }

    /// Records `versions` as seen or sent, keeping for each name the larger of it and the stored one.
    func note(_ versions: [String: UInt64]) throws(SyncError) {
        guard !versions.isEmpty else { return }
        try write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO sealedVersion (recordName, version) VALUES (?, ?)
                ON CONFLICT (recordName) DO UPDATE SET version = max(version, excluded.version)
                """)
            for (name, version) in versions { try statement.execute(arguments: [name, Int64(clamping: version)]) }
        }
    }

    /// The versions to seal the next saves of `names` with (one more than any seen or sent),
    /// noted as sent before they are returned.
    func nextVersions(_ names: [String]) throws(SyncError) -> [String: UInt64] {
        let seen = try seen(names)
        var next: [String: UInt64] = [:]
        for name in names { next[name] = Self.after(seen[name] ?? 0) }
        try note(next)
        return next
    }

    /// The index's path of each of `names` it holds an item for (where a refusal is shown).
    func paths(_ names: some Sequence<String>) -> [String: String] {
        let found = try? read { db in
            let statement = try db.cachedStatement(sql: "SELECT path FROM item WHERE recordName = ?")
            var paths: [String: String] = [:]
            for name in names { if let path = try String.fetchOne(statement, arguments: [name]) { paths[name] = path } }
            return paths
        }
        return found ?? [:]
    }

    /// The version after `version` (the stored column holds at most `Int64.max`).
    static func after(_ version: UInt64) -> UInt64 { min(version, UInt64(Int64.max) - 1) + 1 }

    private func read<T>(_ body: (Database) throws -> T) throws(SyncError) -> T {
        do { return try index.readLatest(body) } catch { throw failure("read", error) }
    }

    private func write<T>(_ body: (Database) throws -> T) throws(SyncError) -> T {
        do { return try index.write(body) } catch { throw failure("update", error) }
    }

    private func failure(_ what: String, _ error: any Error) -> SyncError {
        SyncError(.internalError, "could not \(what) the sealed versions in the index at \(index.url.path): \(error)")
    }
}

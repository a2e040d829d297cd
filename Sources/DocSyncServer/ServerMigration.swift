import DocSyncCore
import DocSyncScaleOut
import DocSyncStorage
import Foundation
import Logging

/// `docsync-server migrate`: copies a one-machine server (its data directory) onto a
/// scale-out store that no server has used yet — users, token hashes, quotas, zones,
/// records, tombstones, Recently Deleted, kept versions and chunks — keeping every sequence
/// value, change tag, incarnation and time. Devices then go on where they were: their
/// tokens authenticate, their change tokens stay valid, their change tags match, and no
/// content is uploaded again.
///
/// Run it while the one-machine server is stopped (what it writes meanwhile would not be
/// copied). Chunks go first, then the rows that name them, user by user.
public struct ServerMigration: Sendable {
    public struct Report: Sendable, Hashable {
        public var users = 0
        public var zones = 0
        public var records = 0
        public var deletedRecords = 0
        public var keptVersions = 0
        public var chunks = 0
        public var chunkBytes: Int64 = 0
        /// Participants' entries of shared zones, of every status.
        public var shareEntries = 0

        public var summary: String {
            "\(users) users, \(zones) zones, \(records) records, \(deletedRecords) in Recently Deleted, \(keptVersions) kept versions, "
                + "\(chunks) chunks (\(StorageSizeText.describe(chunkBytes))), \(shareEntries) share entries"
        }
    }

    public let dataDirectory: URL
    public let destination: ScaleOutStore
    /// Rows per statement, and the bytes of chunks per pack written.
    static let rowsPerPage = 2_000
    static let packBytes = 16 << 20

    public init(dataDirectory: URL, destination: ScaleOutStore) {
        self.dataDirectory = dataDirectory
        self.destination = destination
    }

    /// Copies everything; `progress` gets a line per user.
    public func run(progress: (String) -> Void = { _ in }) async throws(SyncError) -> Report {
        let users = try UserStore(dataDirectory: dataDirectory)
        let backends = UserBackends(dataDirectory: dataDirectory, settings: destination.settings)
        var report = Report()
        for account in try users.exportAccounts() {
            let id = try await destination.importAccount(name: account.name, created: account.created, quotaBytes: account.quotaBytes,
                                                         tokens: account.tokens.map { ($0.hash, $0.created, $0.device) })
            report.users += 1
            guard backends.hasStore(account.name) else {
                progress("\(account.name): account and \(account.tokens.count) tokens (nothing stored yet)")
                continue
            }
            let before = report
            try await copyStore(of: try backends.backend(for: account.name), into: id, &report)
            progress("\(account.name): \(report.records - before.records) records, \(report.chunks - before.chunks) chunks "
                + "(\(StorageSizeText.describe(report.chunkBytes - before.chunkBytes))), \(account.tokens.count) tokens")
        }
        for entry in try await users.exportShares() {
            guard try await destination.replaceShareEntry(nil, with: entry) else {
                throw SyncError(.invalidArguments, "the destination already shares \(entry.share) with \(entry.participant); migrate into an empty store")
            }
            report.shareEntries += 1
        }
        if report.shareEntries > 0 { progress("shares: \(report.shareEntries) participants' entries") }
        return report
    }

    private func copyStore(of source: LocalBackend, into account: Int64, _ report: inout Report) async throws(SyncError) {
        let target = destination.backend(account: account)
        // Chunks first, a pack at a time, verified as they are read; a sealed chunk goes with
        // the body digest it was stored with, which the destination keeps to verify it by.
        var next: Int64? = 0
        while let after = next {
            let page = try await source.exportChunkDigests(after: after, limit: 1_000)
            let chunks = page.rows.isEmpty ? [] : try await source.downloadChunks(prefixOf: page.rows, budget: .max, cost: { $0 })
            var batch: [ChunkUpload] = []
            var bytes = 0
            for chunk in chunks {
                batch.append(chunk)
                bytes += chunk.bytes.count
                report.chunks += 1
                report.chunkBytes += Int64(chunk.bytes.count)
                if bytes >= Self.packBytes {
                    try await target.uploadChunks(batch)
                    batch = []
                    bytes = 0
                }
            }
            if !batch.isEmpty { try await target.uploadChunks(batch) }
            next = page.next
        }
        try await destination.importSequence(try await source.exportSequence(), account: account)
        let zones = try await source.exportZones()
        try await destination.importZones(zones, account: account)
        report.zones += zones.count
        report.records += try await copyPages(source.exportRecords) { rows throws(SyncError) in try await destination.importRecords(rows, account: account) }
        _ = try await copyPages(source.exportTombstones) { rows throws(SyncError) in try await destination.importTombstones(rows, account: account) }
        report.deletedRecords += try await copyPages(source.exportDeleted) { rows throws(SyncError) in try await destination.importDeleted(rows, account: account) }
        report.keptVersions += try await copyPages(source.exportReplaced) { rows throws(SyncError) in try await destination.importReplaced(rows, account: account) }
    }

    /// Reads `export` page by page from the start and hands each page to `store`; returns the rows copied.
    private func copyPages<Row: Sendable>(
        _ export: (Int64, Int) async throws(SyncError) -> StoreExport.Page<Row>, into store: ([Row]) async throws(SyncError) -> Void
    ) async throws(SyncError) -> Int {
        var copied = 0
        var next: Int64? = 0
        while let after = next {
            let page = try await export(after, Self.rowsPerPage)
            try await store(page.rows)
            copied += page.rows.count
            next = page.next
        }
        return copied
    }
}

import DocSyncCore
import Foundation
import GRDB

/// The execute job: a plan (`RemoteChangePlanner`) carried out, each action through the
/// folder's `FolderFileSystem`, the index and the backend, in order. An action that finds
/// the folder changed under it (a file where nothing was expected, a file not as the index
/// last saw it) stops the plan with `assetFileModified`: the loop records the change and the
/// remote change is observed and planned again.
///
/// Owns nothing between plans: the rows it writes are the index's, the directories it
/// makes and the documents written ahead it takes are the loop's state it is given.
struct Executor: EngineJob {
    let engine: FolderEngine
}

extension Executor {
    /// Carries out `plan` on the items of `rows` (their index rows as observed).
    /// `notMergedBecause` is why a line-wise merge fell back to this plan (for the log).
    func execute(_ plan: [SyncAction], rows observed: [String: IndexItem], notMergedBecause: String? = nil,
                 loop: inout EngineLoop) async throws(SyncError) {
        var rows = observed
        /// What a write or a metadata change left on disk, and where a written document's chunks lie.
        var written: [String: (stat: FileStat, chunks: [ChunkRef]?)] = [:]
        /// Conflict copies and items moved aside: their originals' flags are set once the plan is done.
        var copies: [RelativePath] = []
        func row(_ name: String) throws(SyncError) -> IndexItem {
            guard let row = rows[name] else { throw SyncError(.internalError, "a plan named the item \(name), which was not observed") }
            return row
        }
        actions: for action in plan {
            switch action {
            case .place(let record, let over):
                var expected: IndexItem?
                if let over {
                    expected = try row(over)
                    try writeIndex { db in try db.deleteItem(named: over) }
                }
                try await place(record, replacing: expected, loop: &loop)
            case .placePlaceholder(let record):
                if try !engine.placePlaceholder(record, loop: &loop) { try await place(record, replacing: nil, loop: &loop) }
            case .updatePlaceholder(let name, let record):
                try await engine.updatePlaceholder(try row(name), to: record, loop: &loop)
            case .removePlaceholder(let name):
                try engine.removePlaceholder(try row(name))
            case .move(let name, let path):
                var moved = try row(name)
                let from = moved.path
                guard try move(&moved, to: path, loop: &loop) else {
                    logger.debug("a move found its target taken or its source gone", metadata: ["path": "\(path)", "from": "\(moved.path)"])
                    throw localChangeMidway(path)
                }
                // The index follows the disk at once: a plan stopped after this step (a
                // download that fails) must not leave the file where the index has no row.
                // A conflict copy renamed elsewhere (resolved by keeping both) no longer
                // marks its original, and one renamed to a copy's name starts to.
                let final = moved
                try writeIndex { db in
                    try final.update(db)
                    try db.refreshConflictFlags(around: [from, final.path])
                }
                rows[name] = moved
            case .moveAside(let name, let path):
                rows[name] = try moveAside(try row(name), to: path, loop: &loop)
                copies.append(path)
            case .keepConflictCopy(let name, let path, let copyName):
                try keepAsConflictCopy(try row(name), at: path, recordName: copyName)
                copies.append(path)
            case .keepInVersionStore(let record):
                try await keepServerVersion(record)
            case .mergeText(let name, let ancestor, let server, let merged, let otherwise):
                switch try await mergeText(try row(name), ancestor: ancestor, server: server, merged: merged, loop: &loop) {
                case .merged(let final):
                    rows[name] = final
                case .notMerged(let why):
                    logger.info("conflict: both devices edited the text file and the edits could not be merged; keeping both",
                                metadata: ["path": "\(merged.path)", "record": "\(name)", "why": "\(why)"])
                    // The fallback is the rest of the plan.
                    try await execute(otherwise, rows: rows, notMergedBecause: why, loop: &loop)
                    break actions
                }
            case .noteConflict(let path, let copyPath, let remoteDevice, let outcome, let detail):
                let entry = engine.conflictLogEntry(path: path, copyPath: copyPath, remoteDevice: remoteDevice, outcome: outcome,
                                             detail: notMergedBecause.map { "not merged: \($0); this device's content is kept beside" } ?? detail)
                try writeIndex { db in try engine.logConflict(entry, in: db) }
            case .writeContent(let name, let record, let reason):
                let current = try row(name)
                switch try await write(record, at: record.path, expected: reason == nil ? nil : current, keepReplacedAs: reason.map(VersionStore.Reason.init),
                                       loop: &loop) {
                case .targetChanged: throw localChangeMidway(record.path)
                case .written(let stat, let chunks): written[name] = (stat, chunks)
                }
            case .setMetadata(let name, let mode, let modified):
                written[name] = (adjustMetadata(of: try row(name), mode: mode, modified: modified), nil)
            case .settle(let name, let record):
                var final = try row(name)
                final.take(record)
                if let stat = written[name]?.stat { final.take(stat) }
                final.settle(acked: record)
                try store(final, chunks: written[name]?.chunks)
                rows[name] = final
            case .rebase(let name, let merged, let acked):
                var final = try row(name)
                final.take(merged)
                if let stat = written[name]?.stat { final.take(stat) }
                final.acked = acked
                final.needsRead = false
                final.markChanged()
                try store(final, chunks: written[name]?.chunks)
                rows[name] = final
            case .adopt(let name, let record):
                try adopt(try row(name), as: record)
            case .adoptDirectory(let record):
                try adoptDirectory(record, loop: &loop)
            case .shadow(let record):
                try engine.shadow(record)
            case .forget(let name):
                let gone = try row(name)
                try writeIndex { db in
                    try db.deleteItem(named: name)
                    try db.refreshConflictFlags(around: [gone.path])
                }
            case .keepDeletion(let name, let record):
                var kept = try row(name)
                kept.acked = record
                let final = kept
                try writeIndex { db in try final.update(db) }
                rows[name] = final
            case .detach(let name):
                var detached = try row(name)
                detached.acked = nil
                let final = detached
                try writeIndex { db in try final.update(db) }
                rows[name] = final
            case .markChanged(let name):
                var changed = try row(name)
                changed.markChanged()
                let final = changed
                try writeIndex { db in try final.update(db) }
                rows[name] = final
            case .removeDirectory(let name):
                try removeDirectory(try row(name))
            case .deleteToVersionStore(let name):
                try deleteToVersionStore(try row(name))
            }
        }
        if !copies.isEmpty {
            try writeIndex { db in try db.refreshConflictFlags(around: copies) }
        }
    }

    /// Stores `row` (and where its chunks lie, when just written) and keeps the conflict
    /// flags around its path right.
    private func store(_ row: IndexItem, chunks: [ChunkRef]?) throws(SyncError) {
        try writeIndex { db in
            try row.update(db)
            if let chunks { try db.setChunkLocations(of: row.recordName, chunks: chunks) }
            try db.refreshConflictFlags(around: [row.path])
        }
    }
}

extension VersionStore.Reason {
    init(_ reason: KeptVersionReason) {
        switch reason {
        case .conflict: self = .conflict
        case .overwritten: self = .overwritten
        case .deleted: self = .deleted
        }
    }
}

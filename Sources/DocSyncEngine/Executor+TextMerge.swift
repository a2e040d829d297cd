import DocSyncCore
import Foundation
import GRDB

/// The executor's step for `SyncAction.mergeText` (SPEC §4, "Merge before duplicating"): the
/// ancestor's and the server's content from the backend, this device's from its file, merged
/// line-wise (`TextMerge`), the result written over the file like any remote write (a
/// temporary beside it, renamed only if the file is still what the index saw).
extension Executor {
    /// How a merge attempt ended.
    enum TextMergeAttempt {
        /// The merged text is in place; the row as stored, to be sent.
        case merged(IndexItem)
        /// No merge: why, for the log; the plan's fallback is carried out instead.
        case notMerged(String)
    }

    /// Merges the local content of `row` with `server`'s against `ancestor`'s. On success the
    /// item is at `merged.path` with `merged.mode` and the merged text, both inputs are in
    /// the version store (reason `merged`), and the row is pending, based on `server`.
    /// Throws `assetFileModified` when the file changed since it was read (the change is
    /// observed and the remote change planned again).
    func mergeText(_ row: IndexItem, ancestor: DocSyncCore.Record, server: DocSyncCore.Record, merged: DocSyncCore.Record,
                   loop: inout EngineLoop) async throws(SyncError) -> TextMergeAttempt {
        guard let ancestorAsset = ancestor.asset, let serverAsset = server.asset else { return .notMerged("a side has no content") }
        // The file first: when it changed meanwhile, nothing is downloaded for nothing.
        let localBytes = [UInt8](try readForMerge(row))
        let ancestorBytes: Data, serverBytes: Data
        do {
            ancestorBytes = try await backend.loadAsset(ancestorAsset)
            serverBytes = try await backend.loadAsset(serverAsset)
        } catch where error.code == .chunkNotFound {
            return .notMerged("the common earlier version is no longer on the server")
        }
        let remoteBytes = [UInt8](serverBytes)
        let result: [UInt8]
        switch TextMerge.merge(ancestor: [UInt8](ancestorBytes), local: localBytes, remote: remoteBytes) {
        case .conflict(let why): return .notMerged("\(why)")
        case .merged(let text): result = text
        }
        let path = merged.path
        if let problem = StructuredTextCheck.problem(merged: result, local: localBytes, remote: remoteBytes, at: path) {
            return .notMerged(problem)
        }

        var item = row
        if path != item.path {
            guard try move(&item, to: path, loop: &loop) else { throw localChangeMidway(path) }
            let moved = item
            try writeIndex { db in try moved.update(db) }
        }
        try keepInVersionStore(serverBytes, of: server, reason: .merged)
        let (temporary, written) = try writeMergedText(result, beside: path, mode: merged.mode)
        try keepLocalInput(item)
        switch try replace(absolute(path), with: temporary, written: written, path: path, expected: item, reason: nil) {
        case .targetChanged: throw localChangeMidway(path)
        case .written(let stat, _): item.take(stat)
        }
        item.digest = nil
        item.asset = nil
        item.needsRead = true
        item.chunksUploaded = false
        item.acked = server
        item.markChanged()
        let final = item
        try writeIndex { db in
            try final.update(db)
            try db.refreshConflictFlags(around: [final.path])
            try engine.logConflict(engine.conflictLogEntry(path: final.path, remoteDevice: server.lastModifiedBy, outcome: .merged,
                                             detail: "edits on both devices merged line by line; both versions are in the version store"), in: db)
        }
        return .merged(final)
    }

    /// This device's content of `row`, read whole and checked against what the index knows
    /// (its digest and file facts): anything else is a change the engine has not seen yet.
    private func readForMerge(_ row: IndexItem) throws(SyncError) -> Data {
        let content: ContentReader.Content
        do { content = try ContentReader.read(absolute(row.path), keepingUpTo: row.size + 1, chunker: try engine.assetChunker(), in: fileSystem) } catch {
            throw localChangeMidway(row.path)
        }
        guard let bytes = content.bytes, row.matches(content.stat), content.manifest.contentDigest == row.digest else {
            throw localChangeMidway(row.path)
        }
        return bytes
    }

    /// The merged text in a new temporary file beside `path`, flushed, with `mode` and the
    /// current time; returns its path and state.
    private func writeMergedText(_ text: [UInt8], beside path: RelativePath, mode: UInt32) throws(SyncError) -> (String, FileStat) {
        let (file, temporary) = try Materializer.createTemporary(beside: absolute(path), size: text.count, in: fileSystem)
        defer { file.close() }
        do {
            try file.append(Data(text))
            try file.finish(mode: mode, modified: environment.wallNow(), flush: true)
            return (temporary, try file.status())
        } catch {
            try? fileSystem.removeFile(temporary)
            throw Materializer.failure("write the merged text of", path.string, error)
        }
    }

    /// This device's input of a merge, linked into the version store before the merged text
    /// replaces it.
    private func keepLocalInput(_ item: IndexItem) throws(SyncError) {
        do {
            try index.write { db in try versions.keep(absolute(item.path), item: item, reason: .merged, device: configuration.device, move: false, in: db) }
        } catch {
            throw SyncError(.serviceUnavailable, "cannot keep this device's version of \(item.path) (\(error)); not merging it")
        }
    }
}

import DocSyncCore
import Foundation

/// Recording many new items without holding a change for each at once: what a folder's
/// first scan finds, and a large new part of a folder the index knows.
extension Reconciler {
    /// How many new items `recordNewInBatches` plans and records at once.
    static let newItemsPerTransaction = 10_000

    /// Plans and records `found` in batches, in the byte order of the paths, when the scan
    /// holds no indexed item and no waiting deletion: every batch's changes are what the
    /// whole scan's would be (new items), without holding a change for each at once.
    func recordNewInBatches(_ found: [RelativePath: ItemFacts], scan: LocalScan) throws(SyncError) {
        let paths = found.keys.sorted { $0.precedesInByteOrder($1) }
        for start in stride(from: 0, to: paths.count, by: Self.newItemsPerTransaction) {
            var batch: [RelativePath: ItemFacts] = [:]
            for path in paths[start..<min(start + Self.newItemsPerTransaction, paths.count)] { batch[path] = found[path] }
            try recordNew(batch, as: scan)
        }
    }

    /// Plans `found` as `scan`'s findings (which hold nothing to match them with) and records
    /// the changes in one transaction.
    private func recordNew(_ found: [RelativePath: ItemFacts], as scan: LocalScan) throws(SyncError) {
        var batch = scan
        batch.found = found
        let changes = LocalChangePlanner.plan(batch)
        guard !changes.isEmpty else { return }
        try writeIndex { db in _ = try record(changes, contents: [:], db: db) }
    }

    /// The first scan of a folder the index knows nothing of: everything the walk finds is
    /// new (or a directory the engine made), so it is planned and recorded a batch at a time
    /// as the walk goes, in the byte order of the paths, never held whole. The root is
    /// checked before each batch is recorded, as `reconcile` checks it before recording.
    func recordFirstScan(loop: inout EngineLoop) throws(SyncError) {
        let scanner = loop.scanner
        let empty = LocalScan(found: [:], indexed: [], createdDirectories: loop.createdDirectories)
        var batch: [RelativePath: ItemFacts] = [:]
        func record() throws(SyncError) {
            guard !batch.isEmpty else { return }
            try ensureRootUnchanged(loop: &loop)
            try recordNew(batch, as: empty)
            batch.removeAll(keepingCapacity: true)
        }
        let result: FolderScanner.Result
        do {
            result = try scanner.visit(nil) { entry in
                guard let facts = ItemFacts(entry.stat) else { return }
                batch[entry.path] = facts
                if batch.count >= Self.newItemsPerTransaction { try record() }
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.internalError, "could not record the folder's first scan: \(error)")
        }
        try record()
        for problem in result.problems { engine.report(problem) }
        try ensureRootUnchanged(loop: &loop)
        removeLeftoverTemporaryFiles(result.leftoverTemporaryFiles, loop: &loop)
    }
}

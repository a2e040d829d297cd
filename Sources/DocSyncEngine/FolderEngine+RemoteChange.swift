import DocSyncCore
import GRDB

/// The one line a remote change takes to disk: the local changes where it lands recorded
/// first (`recordLocalChanges`), then observed (`observe`, reads only), planned
/// (`RemoteChangePlanner`, pure) and carried out (`Executor`).
extension FolderEngine {
    /// Records local changes where `change` lands, observes it, plans it and carries the plan out.
    func applyRemoteChange(_ change: RemoteChange, deletedInFetch: Set<String> = [], loop: inout EngineLoop) async throws(SyncError) {
        try recordLocalChanges(where: change, loop: &loop)
        let observed = try observer.observe(change, deletedInFetch: deletedInFetch, loop: loop)
        let plan = RemoteChangePlanner.plan(observed.scope, settings: observer.plannerSettings)
        if !plan.isEmpty {
            logger.trace("planned a remote change", metadata: ["record": "\(change.recordName)", "plan": "\(plan)",
                                                           "item": "\(observed.scope.item.map { "\($0.change) at \($0.path), acked \($0.ancestor?.path.string ?? "-") [\($0.ancestor?.changeTag.map { "\($0)" } ?? "-")]" } ?? "none")"])
        }
        try await executor.execute(plan, rows: observed.rows, loop: &loop)
    }

    /// Records, through the local scan, the local changes where `change` lands that the index
    /// has not recorded yet: the item's own first, then (with the item's row as that left it)
    /// what is in a saved record's way. Nothing for an ignored record.
    func recordLocalChanges(where change: RemoteChange, loop: inout EngineLoop) throws(SyncError) {
        if case .saved(let server) = change, loop.scanner.isIgnored(server.path, isDirectory: server.type == .folder) { return }
        let name = change.recordName
        var row = try readIndex { db in try db.item(named: name) }
        if let scope = observer.unrecordedItemChange(change, row: row) {
            try reconciler.reconcile([scope], loop: &loop)
            row = try readIndex { db in try db.item(named: name) }
        }
        guard case .saved(let server) = change, let scope = try observer.unrecordedChangeInTheWay(of: server, row: row) else { return }
        try reconciler.reconcile([scope], loop: &loop)
    }

    /// A remote deletion: observed, planned and carried out.
    func applyRemoteDeletion(_ recordName: String, loop: inout EngineLoop) async throws(SyncError) {
        try await applyRemoteChange(.deleted(recordName: recordName), loop: &loop)
    }
}

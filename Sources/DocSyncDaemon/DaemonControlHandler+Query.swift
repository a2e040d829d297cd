import DocSyncControl
import DocSyncCore
import DocSyncEngine
import Foundation

/// Metadata queries (SPEC §6): one answer, or a live query that streams what changes.
extension DaemonControlHandler {
    /// Every folder's items matching `text`, folder by folder.
    func matches(_ text: String) throws -> [(FolderService, [ItemStatus])] {
        let predicate: MetadataPredicate
        do { predicate = try MetadataPredicate(parsing: text) } catch {
            throw HandlerFailure(ControlResponse.FailureCode.badPredicate, "\(error)")
        }
        return try folders.map { ($0, try $0.engine.items(matching: predicate)) }
    }

    /// Answers a query; a live one (`watch`) first emits the whole result as `initial`,
    /// then, whenever an index changed, what was added, changed and removed — until the
    /// client hangs up (its task is cancelled).
    func query(_ text: String, watch: Bool, emit: @escaping @Sendable (ControlResponse) async -> Void) async throws -> ControlResponse {
        var current = try matches(text).flatMap(\.1)
        guard watch else { return .items(items: current) }
        await emit(.changes(changes: ItemChanges(initial: true, added: current, changed: [], removed: [])))
        var versions = folders.map(\.engine.indexVersion)
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
            let now = folders.map(\.engine.indexVersion)
            guard now != versions else { continue }
            versions = now
            let next = try matches(text).flatMap(\.1)
            let changes = Self.difference(from: current, to: next)
            current = next
            if !changes.added.isEmpty || !changes.changed.isEmpty || !changes.removed.isEmpty { await emit(.changes(changes: changes)) }
        }
        return .items(items: current)
    }

    /// What turns result `old` into `new`, items identified by folder and path (as bytes:
    /// two names that differ only in normalization are two items).
    static func difference(from old: [ItemStatus], to new: [ItemStatus]) -> ItemChanges {
        struct Key: Hashable {
            var folder: PathKey, path: PathKey
            init(folder: String, path: String) { (self.folder, self.path) = (PathKey(folder), PathKey(path)) }
        }
        let before = Dictionary(old.map { (Key(folder: $0.folder, path: $0.path), $0) }, uniquingKeysWith: { a, _ in a })
        let after = Dictionary(new.map { (Key(folder: $0.folder, path: $0.path), $0) }, uniquingKeysWith: { a, _ in a })
        return ItemChanges(
            initial: false,
            added: new.filter { before[Key(folder: $0.folder, path: $0.path)] == nil },
            changed: new.filter { item in before[Key(folder: item.folder, path: item.path)].map { $0 != item } ?? false },
            removed: old.filter { after[Key(folder: $0.folder, path: $0.path)] == nil })
    }
}

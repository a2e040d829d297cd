import DocSyncControl
import DocSyncCore
import DocSyncEngine

/// Conflicts (SPEC §4): settling them as a person chooses (`docs-status resolve`) and the
/// log of every conflict met (`docs-status conflicts --log`).
extension DaemonControlHandler {
    /// Settles the conflicts the absolute `paths` name and, with `all` (or a `predicate`),
    /// every conflict of every folder the predicate matches; one outcome per conflict, in the
    /// order the paths were given, then folder by folder.
    func resolveConflicts(paths: [String], all: Bool, predicate text: String?, keep: ConflictKeep) async throws -> [ActionOutcome] {
        var byFolder: [(FolderService, [RelativePath])] = []
        func add(_ folder: FolderService, _ path: RelativePath) {
            if let index = byFolder.firstIndex(where: { $0.0 === folder }) {
                if !byFolder[index].1.contains(path) { byFolder[index].1.append(path) }
            } else {
                byFolder.append((folder, [path]))
            }
        }
        for path in paths {
            let (folder, relative) = try resolve(path)
            guard let relative else {
                throw HandlerFailure(ControlResponse.FailureCode.notFound, "\(path) is a synced folder itself, not an item in it; use --all to resolve every conflict")
            }
            add(folder, relative)
        }
        try requireItems(byFolder)
        if all || text != nil {
            var predicate: MetadataPredicate?
            if let text {
                do { predicate = try MetadataPredicate(parsing: text) } catch {
                    throw HandlerFailure(ControlResponse.FailureCode.badPredicate, "\(error)")
                }
            }
            for folder in folders {
                for path in try folder.engine.conflictTargets(matching: predicate) { add(folder, path) }
            }
        }
        var outcomes: [ActionOutcome] = []
        for (folder, relatives) in byFolder { outcomes += await folder.engine.perform(.resolve(relatives, keep: keep)) }
        return outcomes
    }

    /// Every folder's conflict log from `since` on, newest first.
    func conflictLog(since: Timestamp?) throws -> [ConflictLogEntry] {
        try folders.flatMap { try $0.engine.conflictLog(since: since) }
            .sorted { $0.time != $1.time ? $0.time > $1.time : !$0.folder.bytesEqual($1.folder) ? $0.folder.bytesPrecede($1.folder) : $0.path.bytesPrecede($1.path) }
    }
}

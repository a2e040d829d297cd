import DocSyncCore
import Foundation
import GRDB

/// What a person asks of a folder through `docs-status` that changes it.
public enum EngineAction: Sendable, Hashable {
    /// Replace these placeholders with their content, and keep them local (pinned).
    case download([RelativePath])
    /// Replace these placeholders with their content, for a program about to change them
    /// (through the on-demand mount); not pinned.
    case makeLocal([RelativePath])
    /// Turn these uploaded files into placeholders (and no longer keep them local).
    case evict([RelativePath])
    /// Keep these documents (the documents beneath these folders) local: downloaded now,
    /// never evicted by the cache limit (SPEC §14).
    case pin([RelativePath])
    /// No longer keep these documents local: the cache limit may evict them.
    case unpin([RelativePath])
    /// Bring back a kept version (`nil`: the newest of the item at the path) as a local change.
    case restore(RelativePath, version: Int64?)
    /// Send the deletions the folder holds back (SPEC §4a).
    case confirmDeletions
    /// Bring the items the folder holds back from the backend (SPEC §4a).
    case restoreHeld
    /// Settle the conflicts these paths name (originals or conflict copies), keeping `keep`
    /// (SPEC §4, `FolderEngine+Resolve`).
    case resolve([RelativePath], keep: ConflictKeep)
}

/// An action waiting for the engine's loop, with whom to tell the outcome.
struct QueuedAction: Sendable {
    var action: EngineAction
    var reply: @Sendable ([ActionOutcome]) -> Void
}

extension FolderEngine {
    /// Performs `action` on the engine's loop (the only task that touches the folder and the
    /// index) and returns what happened to each item. Returns at once with a failure for each
    /// item if the engine stops first.
    public func perform(_ action: EngineAction) async -> [ActionOutcome] {
        await withCheckedContinuation { continuation in
            enqueue(action) { continuation.resume(returning: $0) }
        }
    }

    /// Queues `action` for the loop's next turn without waiting: `reply` is called with what
    /// happened to each item once a turn ran it (or with failures if the engine stops first).
    public func enqueue(_ action: EngineAction, reply: @escaping @Sendable ([ActionOutcome]) -> Void) {
        inbox.withLock { $0.actions.append(QueuedAction(action: action, reply: reply)) }
        wake.fire()
    }

    /// Runs queued actions; called by the loop. While the folder is held (`root` is not
    /// `.proceed`) only the choices over what it holds run: nothing else writes into it.
    func run(_ queued: [QueuedAction], root: RootCheck, loop: inout EngineLoop) async {
        for item in queued {
            var outcomes: [ActionOutcome] = []
            switch (item.action, root) {
            case (.confirmDeletions, _):
                outcomes = await confirmHeldDeletions(root: root, loop: &loop)
            case (.restoreHeld, _):
                outcomes = await restoreHeldItems(root: root, loop: &loop)
            case (_, .held), (_, .waiting):
                let message = switch root {
                case .held(let reason): "refused: the folder is held (\(reason.rawValue)); see 'docs-status deletions'"
                case .waiting(let why): "refused: \(why)"
                case .proceed: ""
                }
                outcomes = affectedPaths(item.action).map { ActionOutcome(folder: configuration.zone.name, path: $0.string, done: false, message: message) }
            case (.download(let paths), .proceed):
                for path in paths { outcomes.append(await download(path, pin: true, loop: &loop)) }
            case (.makeLocal(let paths), .proceed):
                for path in paths { outcomes.append(await download(path, pin: false, loop: &loop)) }
            case (.pin(let paths), .proceed):
                for path in paths { outcomes += await pin(path, loop: &loop) }
            case (.unpin(let paths), .proceed):
                for path in paths { outcomes += unpin(path) }
            case (.evict(let paths), .proceed):
                for path in paths { outcomes.append(evict(path)) }
            case (.restore(let path, let version), .proceed):
                outcomes.append(restore(path, version: version, loop: &loop))
            case (.resolve(let paths, let keep), .proceed):
                outcomes = resolve(paths, keep: keep, loop: &loop)
            }
            item.reply(outcomes)
        }
    }

    /// The paths an action names (none for the folder-wide ones).
    private func affectedPaths(_ action: EngineAction) -> [RelativePath] {
        switch action {
        case .download(let paths), .makeLocal(let paths), .evict(let paths), .resolve(let paths, _), .pin(let paths), .unpin(let paths): paths
        case .restore(let path, _): [path]
        case .confirmDeletions, .restoreHeld: []
        }
    }

    /// Answers queued actions the loop will never run (it is stopping).
    func abandon(_ queued: [QueuedAction]) {
        for item in queued {
            let paths = affectedPaths(item.action)
            item.reply((paths.isEmpty ? [RelativePath(".")] : paths).map {
                ActionOutcome(folder: configuration.zone.name, path: $0.string, done: false, message: "docsyncd is stopping")
            })
        }
    }

    /// Copies a kept version back to its path as a new local change. What is at the path now
    /// is kept in the version store first, so restoring never loses anything either.
    func restore(_ path: RelativePath, version id: Int64?, loop: inout EngineLoop) -> ActionOutcome {
        func outcome(_ done: Bool, _ message: String? = nil) -> ActionOutcome {
            ActionOutcome(folder: configuration.zone.name, path: path.string, done: done, message: message)
        }
        let entries: [VersionEntry]
        do { entries = try versionEntries(at: path) } catch { return outcome(false, "cannot read the version store: \(error)") }
        guard let entry = id.map({ id in entries.first { $0.id == id } }) ?? entries.first else {
            return outcome(false, id.map { "no version \($0) of this item" } ?? "no kept versions of this item")
        }
        let stored: String?
        do { stored = try index.read { db in try String.fetchOne(db, sql: "SELECT file FROM version WHERE id = ?", arguments: [entry.id]) } } catch {
            return outcome(false, "cannot read the version store: \(error)")
        }
        guard let stored else { return outcome(false, "version \(entry.id) was pruned") }
        let source = versions.directory.appendingPathComponent(stored).path
        let target = absolute(path)
        do throws(SyncError) {
            guard let bytes = fileSystem.contents(source) else {
                return outcome(false, "the kept file of version \(entry.id) cannot be read")
            }
            let made = try Materializer.makeParents(of: path, root: configuration.root.path, in: fileSystem)
            loop.rememberCreated(made)
            let (file, temporary) = try Materializer.createTemporary(beside: target, size: bytes.count, in: fileSystem)
            defer { file.close() }
            do throws(SyncError) {
                do {
                    try file.append(bytes)
                    try file.finish(mode: 0o644, modified: environment.wallNow(), flush: true)
                } catch {
                    throw Materializer.failure("restore", path.string, error)
                }
                file.close()
                if let current = try? fileSystem.status(target), current.kind == .file, let row = try readIndex({ db in try db.item(at: path) }) {
                    try writeIndex { db in
                        try versions.keep(target, item: row, reason: .overwritten, device: configuration.device, move: false, in: db)
                    }
                }
                do { try fileSystem.rename(temporary, to: target) } catch { throw Materializer.failure("restore", path.string, error) }
            } catch {
                try? fileSystem.removeFile(temporary)
                throw error
            }
            try reconciler.reconcile([EngineInbox.Scope(path: path, subtree: false)], loop: &loop)
            logger.info("restored a kept version", metadata: ["path": "\(path)", "version": "\(entry.id)", "savedAt": "\(entry.savedAt)"])
            return outcome(true, "restored the version of \(entry.savedAt.formatted(.iso8601)) from \(entry.device)")
        } catch {
            return outcome(false, error.message)
        }
    }
}

import DocSyncCore
import DocSyncStorage
import Foundation

/// Writing a fetched page's new documents ahead of applying it: several groups at once, the
/// chunks of a whole group found (local copies, then one download) in one go, and one
/// flush of the file system for all of them instead of one fsync per file. `Executor.write` later
/// only renames each prepared file into place, after its usual checks.
extension Fetcher {
    /// Prepares the new documents among `records` (ordered folders first); `known` names the
    /// records the index already has a row for. Preparation failures are left to `Executor.write`,
    /// which retries and reports them.
    func prepareNewDocuments(_ records: [DocSyncCore.Record], known: Set<String>, loop: inout EngineLoop) async {
        guard !configuration.onDemand else { return }  // new documents become placeholders
        // A document is written ahead only into a directory that exists, or that a new folder
        // of this page creates: never into a place a moving folder is about to take.
        let newFolders = Set(records.filter { $0.type == .folder && !known.contains($0.id.recordName) }.map(\.path))
        let work = records.filter { record in
            guard record.type == .document, record.asset != nil, !known.contains(record.id.recordName),
                  !loop.scanner.isIgnored(record.path),
                  ((try? fileSystem.status(absolute(record.path))) ?? nil) == nil else { return false }
            guard let parent = record.path.parent else { return true }
            return newFolders.contains(parent) || ((try? fileSystem.status(absolute(parent)))??.kind == .directory)
        }
        guard work.count > 1 else { return }
        // Groups of small documents share one chunk lookup and download.
        var groups: [[DocSyncCore.Record]] = [[]]
        var groupBytes: Int64 = 0
        for record in work {
            if groups[groups.count - 1].count >= 128 || groupBytes >= 4 << 20 {
                groups.append([])
                groupBytes = 0
            }
            groups[groups.count - 1].append(record)
            groupBytes += record.size
        }
        var results = PreparedGroup()
        if environment.serial {
            for group in groups { results.add(await prepareGroup(group)) }
        } else {
            results = await prepareGroupsTogether(groups)
        }
        loop.rememberCreated(results.made)
        guard !results.files.isEmpty else { return }
        if fileSystem.flushFileSystem(containing: configuration.root.path) {
            loop.preparedFiles.merge(results.files) { _, new in new }
        } else {
            for file in results.files.values { try? fileSystem.removeFile(file.temporary) }
        }
    }

    /// What preparing groups of documents wrote: each prepared file by record name, and the
    /// directories made for them.
    private struct PreparedGroup: Sendable {
        var files: [String: Executor.PreparedFile] = [:]
        var made: [RelativePath] = []

        mutating func add(_ other: PreparedGroup) {
            files.merge(other.files) { _, new in new }
            made += other.made
        }
    }

    /// Prepares `groups`, four at a time.
    private func prepareGroupsTogether(_ groups: [[DocSyncCore.Record]]) async -> PreparedGroup {
        await withTaskGroup(of: PreparedGroup.self) { taskGroup in
            var next = 0
            var results = PreparedGroup()
            func add() {
                guard next < groups.count else { return }
                let group = groups[next]
                next += 1
                taskGroup.addTask { [self] in await prepareGroup(group) }
            }
            for _ in 0..<4 { add() }
            while let prepared = await taskGroup.next() {
                results.add(prepared)
                add()
            }
            return results
        }
    }

    /// Writes each document of `group` to a temporary file, unflushed; those that fail are left out.
    private func prepareGroup(_ group: [DocSyncCore.Record]) async -> PreparedGroup {
        var manifests: [(DocSyncCore.Record, AssetManifest)] = []
        for record in group {
            guard let asset = record.asset, let manifest = try? await backend.loadManifest(asset) else { continue }
            manifests.append((record, manifest))
        }
        let small = manifests.flatMap { $0.1.chunks.count <= 256 ? $0.1.chunks : [] }
        let found = (try? await engine.executor.chunkBytes(small)) ?? [:]
        var prepared = PreparedGroup()
        for (record, manifest) in manifests {
            if let file = try? await engine.executor.writeTemporary(record, at: record.path, manifest: manifest, chunks: found, flush: false, made: &prepared.made) {
                prepared.files[record.id.recordName] = file
            }
        }
        return prepared
    }
}

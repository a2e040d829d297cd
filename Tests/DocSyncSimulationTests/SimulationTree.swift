import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation

/// Reading what a simulation left: a device's folder as a person sees it, and the store's
/// live records.
enum SimulationTree {
    struct Entry {
        var kind: FileStat.Kind
        /// A file's bytes; a symlink's target.
        var content: Data?
    }

    /// Names nobody syncs: ignored by default rules (`*.swp`), engine temporary files, the
    /// root's marker, placeholders.
    static func isIgnored(_ relative: String) -> Bool {
        let name = relative.split(separator: "/").last.map(String.init) ?? relative
        return name.hasByteSuffix(".swp") || name.hasBytePrefix(IgnoreRules.temporaryFilePrefix) || name.hasByteSuffix(IgnoreRules.placeholderSuffix)
            || relative.bytesEqual(IgnoreRules.rootMarkerName)
    }

    /// Every item beneath `root` by relative path (as bytes: names that differ only in
    /// normalization are two); without `everything`, ignored items are left out; without
    /// `contents`, no entry holds its content (a file's bytes are not read).
    static func walk(_ fs: MemoryFileSystem, root: String, everything: Bool = false, contents: Bool = true) -> [PathKey: Entry] {
        var found: [PathKey: Entry] = [:]
        var pending = [""]
        // A directory met twice (a file system that let one into itself) is walked once: the
        // walk ends, and the tree it returns shows the damage to the invariants.
        var walked = Set<UInt64>()
        while let next = pending.popLast() {
            let directory = next.isEmpty ? root : root + "/" + next
            for nameBytes in (try? fs.entryNames(directory)) ?? [] {
                let name = String(decoding: nameBytes, as: UTF8.self)
                let relative = next.isEmpty ? name : next + "/" + name
                if !everything, isIgnored(relative) { continue }
                guard let stat = (try? fs.status(root + "/" + relative)) ?? nil else { continue }
                switch stat.kind {
                case .directory:
                    found[PathKey(relative)] = Entry(kind: .directory)
                    if walked.insert(stat.inode).inserted { pending.append(relative) }
                case _ where !contents:
                    found[PathKey(relative)] = Entry(kind: stat.kind)
                case .symlink:
                    found[PathKey(relative)] = Entry(kind: .symlink, content: (try? fs.linkTarget(root + "/" + relative)).map { Data($0) })
                default:
                    found[PathKey(relative)] = Entry(kind: stat.kind, content: fs.contents(root + "/" + relative))
                }
            }
        }
        return found
    }

    /// The store's live records of the simulation's zone, by record name.
    static func storeRecords(_ store: MemoryBackend) async -> [String: DocSyncCore.Record] {
        var records: [String: DocSyncCore.Record] = [:]
        var token: ChangeToken?
        while true {
            guard let page = try? await store.fetchChanges(in: Simulation.zone, since: token, limit: StorageLimits.maximumPageSize) else { return records }
            for record in page.changed { records[record.id.recordName] = record }
            for id in page.deleted { records[id.recordName] = nil }
            token = page.token
            if !page.moreComing { return records }
        }
    }
}

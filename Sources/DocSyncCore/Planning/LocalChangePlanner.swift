/// Decides what changed in the folder from a `LocalScan` alone: no I/O, no clock, no
/// database. In two steps, as the executor calls them: `contentToRead` names the found
/// files whose content must be read (a copy that may be a rename), then `plan` returns the
/// changes, in the order they are recorded.
///
/// The rules:
/// - an indexed item found at its path with other facts is modified; with the same facts
///   it is unchanged; an item shown as a placeholder is present while its placeholder is;
/// - an item not found at its path (or found there as another kind) has vanished — unless
///   its path is ignored or lies under a directory that could not be read;
/// - a vanished item whose inode is found at a new path, as the same kind, was renamed; a
///   vanished placeholder whose placeholder file (its inode) is found showing another path
///   was renamed too, its content still not local (a file is never taken for a placeholder
///   moved, nor a placeholder for a file);
/// - a new path where a deletion of the same kind waits revives that item;
/// - a new document with the content digest of a vanished one is that item, renamed by a
///   copy and a deletion;
/// - a directory the engine made for remote items is not a new local folder;
/// - everything else found is new; every vanished item left is deleted.
public enum LocalChangePlanner {
    /// The found documents whose digests `plan` needs: new paths (not renames, not revivals)
    /// the size of a vanished document whose digest is known.
    public static func contentToRead(_ scan: LocalScan) -> [RelativePath] {
        Matching(scan).contentToRead(scan)
    }

    public static func plan(_ scan: LocalScan) -> [LocalChange] {
        plan(scan, matching: Matching(scan))
    }

    /// `plan(_:)` from a matching already made of `scan` (the one `contentToRead` was asked
    /// of): the matching does not depend on the digests read since.
    public static func plan(_ scan: LocalScan, matching: Matching) -> [LocalChange] {
        var matching = matching
        var changes = matching.changes
        for (path, facts) in matching.unmatched {
            if facts.type == .folder, scan.createdDirectories.contains(path) { continue }
            if let waiting = matching.revived(path, facts, in: scan) {
                changes.append(.revived(recordName: waiting.recordName, facts: facts))
                continue
            }
            if facts.type == .document, let digest = scan.digests[path],
               let original = matching.vanished.values
                   .filter({ $0.facts.type == .document && $0.digest == digest && $0.facts.size == facts.size })
                   .min(by: { $0.recordName < $1.recordName }) {
                matching.vanished.removeValue(forKey: original.recordName)
                changes.append(.renamedByContent(recordName: original.recordName, to: path, replacedPlaceholder: original.isPlaceholder))
                continue
            }
            changes.append(.created(path, facts: facts))
        }
        for gone in matching.vanished.values.sorted(by: { $0.path < $1.path }) {
            changes.append(.vanished(recordName: gone.recordName, path: gone.path, acknowledged: gone.acknowledged))
        }
        return changes
    }

    /// The first matching of found paths with indexed items: modified ones, renames by
    /// inode, and what is left on either side. Made once per scan, for both steps.
    public struct Matching: Sendable {
        var changes: [LocalChange] = []
        /// Found paths no indexed item claimed, in path order.
        var unmatched: [(path: RelativePath, facts: ItemFacts)] = []
        /// Indexed items not found, by record name.
        var vanished: [String: LocalScan.Indexed] = [:]

        public init(_ scan: LocalScan) {
            var atPath: [RelativePath: LocalScan.Indexed] = [:]
            for item in scan.indexed {
                atPath[item.path] = item
                if let found = scan.found[item.path], found.type == item.facts.type { continue }
                if item.ignored || scan.unreadable.contains(where: { $0.isEmpty || item.path.string.isSamePathOrBeneath($0) }) { continue }
                if item.isPlaceholder, item.placeholderPresent { continue }
                vanished[item.recordName] = item
            }
            var byInode: [UInt64: [String]] = [:]
            for item in vanished.values.sorted(by: { $0.recordName < $1.recordName }) { byInode[item.facts.inode, default: []].append(item.recordName) }
            for (path, facts) in scan.found.sorted(by: { $0.key < $1.key }) {
                if let known = atPath[path], known.facts.type == facts.type, vanished[known.recordName] == nil {
                    if !known.facts.matches(facts) {
                        changes.append(.modified(recordName: known.recordName, facts: facts, contentChanged: known.facts.type != .folder
                                                 && !(known.facts.size == facts.size && known.facts.modified == facts.modified && known.facts.inode == facts.inode),
                                                 replacedPlaceholder: known.isPlaceholder))
                    }
                    continue
                }
                if let name = byInode[facts.inode]?.first(where: { vanished[$0]?.facts.type == facts.type && vanished[$0]?.isPlaceholder == false }),
                   let original = vanished.removeValue(forKey: name) {
                    byInode[facts.inode]?.removeAll { $0 == name }
                    changes.append(.renamed(recordName: name, to: path, facts: facts, contentChanged: facts.contentMayDiffer(from: original.facts)))
                    continue
                }
                unmatched.append((path, facts))
            }
            for (path, facts) in scan.foundPlaceholders.sorted(by: { $0.key < $1.key }) {
                if let known = atPath[path], known.isPlaceholder, vanished[known.recordName] == nil { continue }  // its own
                guard facts.inode != 0,
                      let name = byInode[facts.inode]?.first(where: { vanished[$0]?.isPlaceholder == true && vanished[$0]?.facts.type == .document }),
                      vanished.removeValue(forKey: name) != nil else { continue }
                byInode[facts.inode]?.removeAll { $0 == name }
                changes.append(.renamed(recordName: name, to: path, facts: facts, contentChanged: false))
            }
        }

        /// `LocalChangePlanner.contentToRead(_:)` of the scan this matching was made of.
        public func contentToRead(_ scan: LocalScan) -> [RelativePath] {
            let sizes = Set(vanished.values.filter { $0.facts.type == .document && $0.digest != nil }.map(\.facts.size))
            guard !sizes.isEmpty else { return [] }
            return unmatched.filter { path, facts in
                facts.type == .document && sizes.contains(facts.size) && revived(path, facts, in: scan) == nil
            }.map(\.path)
        }

        /// The item whose deletion waits at `path`, of the found kind.
        func revived(_ path: RelativePath, _ facts: ItemFacts, in scan: LocalScan) -> LocalScan.Indexed? {
            scan.pendingDeletions[path]?.first { $0.facts.type == facts.type }
        }
    }
}

/// The page-level decisions of applying a fetched page of remote changes (SPEC §3), from
/// facts the engine gathers: no I/O, no clock, no database. Each record of a page is then
/// decided by `RemoteChangePlanner` — or, when it is plainly new, placed with the others
/// like it in one go.
///
/// The rules:
/// - saved records are applied folders first, shallow before deep (a parent exists before
///   its children), then documents and links, shallow before deep; paths in byte order
///   among equals. Echoes (this device's own saves coming back) and saves found to be this
///   device's own (`UncertainSavesPlanner`) are left out;
/// - deletions are applied deepest first, so a folder goes after what was inside it;
/// - a saved record is plainly new — placed without a plan of its own, its row written with
///   the others' in one transaction — when nothing here can have a claim on it: no item of
///   its name, no live item at its path, no other record of the page at its path, its path
///   not ignored, and it is a folder, or a document in a folder that downloads documents
///   (an on-demand folder shows placeholders). Links always take the one-record path.
public enum RemotePagePlanner {
    /// What the index and the ignore rules say of one saved record of a page.
    public struct NewRecordFacts: Sendable, Hashable {
        /// The index has an item of the record's name.
        public var known: Bool
        /// A live item (not a pending deletion) of the index is at the record's path.
        public var pathTaken: Bool
        /// The record's path is ignored here.
        public var ignored: Bool

        public init(known: Bool = false, pathTaken: Bool = false, ignored: Bool = false) {
            self.known = known
            self.pathTaken = pathTaken
            self.ignored = ignored
        }
    }

    /// The saved records of a page in the order they are applied, without those named in
    /// `skipping`.
    public static func order(_ changed: [Record], skipping: Set<String>) -> [Record] {
        changed.filter { !skipping.contains($0.id.recordName) }
            .map { (record: $0, isFile: $0.type != .folder, depth: $0.path.depth) }
            .sorted { a, b in
                if a.isFile != b.isFile { return !a.isFile }
                return a.depth != b.depth ? a.depth < b.depth : a.record.path < b.record.path
            }
            .map(\.record)
    }

    /// The record names of the items a page deletes, in the order the deletions are
    /// applied: deepest first. `items` are the page's deletions the index has an item for,
    /// in the page's order, with the item's path.
    public static func deletionOrder(_ items: [(recordName: String, path: RelativePath)]) -> [String] {
        items.map { (name: $0.recordName, depth: $0.path.depth) }.sorted { $0.depth > $1.depth }.map(\.name)
    }

    /// The records of `ordered` (a page's saves) whose facts `plainlyNew` needs: those its
    /// kind, the folder's setting and the page alone do not rule out. In the same order.
    public static func factsNeeded(_ ordered: [Record], onDemand: Bool) -> [Record] {
        var pathCounts: [RelativePath: Int] = [:]
        for record in ordered { pathCounts[record.path, default: 0] += 1 }
        return ordered.filter { record in
            record.type != .symlink && pathCounts[record.path] == 1 && !(onDemand && record.type == .document)
        }
    }

    /// The records of `ordered` (a page's saves in `order`) that are plainly new here, in
    /// the same order. `facts` holds the facts of the records `factsNeeded` names, by record
    /// name (a record without facts is not plainly new).
    public static func plainlyNew(_ ordered: [Record], facts: [String: NewRecordFacts], onDemand: Bool) -> [Record] {
        factsNeeded(ordered, onDemand: onDemand).filter { record in
            guard let known = facts[record.id.recordName] else { return false }
            return !known.ignored && !known.known && !known.pathTaken
        }
    }
}

/// What comparing part of the folder with the index starts from: what the walk found in the
/// examined scopes, the index's live items there, and the few other facts the comparison
/// needs. The executor gathers it; `LocalChangePlanner` decides from it alone.
public struct LocalScan: Sendable {
    /// One live item of the index in the examined scopes.
    public struct Indexed: Sendable, Hashable {
        public var recordName: String
        public var path: RelativePath
        public var facts: ItemFacts
        /// The server acknowledged a version of it (its disappearance is a deletion to send).
        public var acknowledged: Bool
        /// A document's content digest, when known.
        public var digest: SHA256Digest?
        public var isPlaceholder: Bool
        /// For a placeholder: its placeholder file is there (the item counts as present).
        public var placeholderPresent: Bool
        /// Its path is ignored now (it is left as it is).
        public var ignored: Bool

        public init(recordName: String, path: RelativePath, facts: ItemFacts, acknowledged: Bool, digest: SHA256Digest? = nil,
                    isPlaceholder: Bool = false, placeholderPresent: Bool = false, ignored: Bool = false) {
            self.recordName = recordName
            self.path = path
            self.facts = facts
            self.acknowledged = acknowledged
            self.digest = digest
            self.isPlaceholder = isPlaceholder
            self.placeholderPresent = placeholderPresent
            self.ignored = ignored
        }
    }

    /// What the walk found, by path (folders, documents and links; nothing ignored).
    public var found: [RelativePath: ItemFacts]
    /// The live items of the index in the examined scopes.
    public var indexed: [Indexed]
    /// Items whose deletion waits to be sent, by path: one found there again is the same item.
    public var pendingDeletions: [RelativePath: [Indexed]]
    /// Paths (relative, `""` for the whole folder) that could not be read: nothing beneath
    /// them is taken for deleted.
    public var unreadable: [String]
    /// Directories the engine made for remote items: not new local folders.
    public var createdDirectories: Set<RelativePath>
    /// Content digests of the found documents `LocalChangePlanner.contentToRead` asked for.
    public var digests: [RelativePath: SHA256Digest]
    /// Placeholders the walk found, by the path of the item each shows, with the
    /// placeholder's own facts (its inode follows it when it is moved).
    public var foundPlaceholders: [RelativePath: ItemFacts]

    public init(found: [RelativePath: ItemFacts], indexed: [Indexed], pendingDeletions: [RelativePath: [Indexed]] = [:],
                unreadable: [String] = [], createdDirectories: Set<RelativePath> = [], digests: [RelativePath: SHA256Digest] = [:],
                foundPlaceholders: [RelativePath: ItemFacts] = [:]) {
        self.found = found
        self.indexed = indexed
        self.pendingDeletions = pendingDeletions
        self.unreadable = unreadable
        self.createdDirectories = createdDirectories
        self.digests = digests
        self.foundPlaceholders = foundPlaceholders
    }
}

/// One local change, as `LocalChangePlanner` finds it: what the executor records in the index.
public enum LocalChange: Sendable, Hashable {
    /// The item at its path changed (`contentChanged`: its content is read again); a real
    /// file that took a placeholder's place makes the item local again.
    case modified(recordName: String, facts: ItemFacts, contentChanged: Bool, replacedPlaceholder: Bool)
    /// The item moved (the same inode under a new path).
    case renamed(recordName: String, to: RelativePath, facts: ItemFacts, contentChanged: Bool)
    /// The item was copied to a new path and its original deleted: the same content.
    case renamedByContent(recordName: String, to: RelativePath, replacedPlaceholder: Bool)
    /// Something is back at the path of an item whose deletion waits: the same item, changed.
    case revived(recordName: String, facts: ItemFacts)
    /// A new item.
    case created(RelativePath, facts: ItemFacts)
    /// The item is gone: a deletion to send when the server had it, otherwise its row just goes.
    case vanished(recordName: String, path: RelativePath, acknowledged: Bool)
}

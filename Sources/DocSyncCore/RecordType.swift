/// What kind of item a record describes, with CloudKit-style type names.
public enum RecordType: String, Hashable, Codable, Sendable, CaseIterable {
    /// A regular file; its content is an asset.
    case document = "Document"
    /// A directory, synced even when empty.
    case folder = "Folder"
    /// A symbolic link, synced as the link itself and never followed.
    case symlink = "Symlink"
    /// One key of a key-value store (SPEC §12; `Record+Value`): only in a store's zone.
    case value = "Value"
    /// An item of an encrypted folder as the server sees it (SPEC §13, `Record+Sealed`): its
    /// kind and every private field are in `sealed`.
    case sealed = "Sealed"
}

/// One item of a zone — a file, a folder or a symlink — as the backend stores it.
///
/// Identity is `id`; everything else is a field that may change. `changeTag` is `nil` on a
/// record that has never been saved and is set by the backend on every save. Documents carry
/// `contentDigest` and `asset`; symlinks carry `symlinkTarget`; folders carry neither;
/// Values (a key of a key-value store, `Record+Value`) carry `value`. `lastEditorName` is
/// the account that saved this version, as a server that knows accounts stamps it. Sealed
/// records (an encrypted folder's, `Record+Sealed`) carry `sealed` and, besides their
/// name, only what the server needs: the sealed size, the chunks' ids (`asset`).
/// `validate()` checks these rules and the 1 MB limit on a record's fields.
///
/// The fields are listed once, in `Record.Field`, which every encoding follows (wire JSON,
/// compact, `Codable`). `==` compares every field, the change tag included; "the same
/// record" — the same item in the same state — is `isSameRecord(as:)`.
public struct Record: Hashable, Codable, Sendable, CustomStringConvertible {
    /// Largest encoded size of a record, asset reference included (CloudKit's 1 MB).
    public static let maximumEncodedSize = 1_000_000

    public let id: RecordID
    public var type: RecordType
    public var changeTag: ChangeTag?
    /// Where the item lives in its folder.
    public var path: RelativePath
    /// Bytes of content (documents), of the link target (symlinks), 0 for folders.
    public var size: Int64
    /// The content's modification time (the file's mtime).
    public var modified: Timestamp
    /// POSIX permission bits (`0o7777` at most).
    public var mode: UInt32
    /// SHA-256 of the whole file (documents only).
    public var contentDigest: SHA256Digest?
    /// Where the content's chunks are listed (documents only).
    public var asset: AssetReference?
    /// The link's target, verbatim (symlinks only).
    public var symlinkTarget: String?
    /// The device that made the change this version records.
    public var lastModifiedBy: String
    /// A Value's JSON text (Values only), at most `KeyValueLimits.maximumValueBytes` bytes.
    public var value: String?
    /// The account that saved this version (iCloud's `lastEditorName`, SPEC §11): set by
    /// `docsync-server` on every save and recovery, whatever the device sent; `nil` where the
    /// store knows no accounts (the embedded backend) and on a record not saved yet.
    public var lastEditorName: String?
    /// An encrypted item's kind and private fields, sealed on a device (`.sealed` records
    /// only, SPEC §13): what the server holds of it instead.
    public var sealed: SealedBlob?

    public init(
        id: RecordID, type: RecordType, changeTag: ChangeTag? = nil, path: RelativePath, size: Int64 = 0,
        modified: Timestamp, mode: UInt32, contentDigest: SHA256Digest? = nil, asset: AssetReference? = nil,
        symlinkTarget: String? = nil, lastModifiedBy: String, value: String? = nil, lastEditorName: String? = nil,
        sealed: SealedBlob? = nil
    ) {
        self.id = id
        self.type = type
        self.changeTag = changeTag
        self.path = path
        self.size = size
        self.modified = modified
        self.mode = mode
        self.contentDigest = contentDigest
        self.asset = asset
        self.symlinkTarget = symlinkTarget
        self.lastModifiedBy = lastModifiedBy
        self.value = value
        self.lastEditorName = lastEditorName
        self.sealed = sealed
    }

    /// Bytes of the record's wire JSON.
    var wireJSONSize: Int {
        var writer = WireJSONWriter(capacity: 0)
        writeJSON(to: &writer)
        return writer.bytes.count
    }

    public var description: String { "\(type.rawValue) \(id) at \(path) [\(changeTag?.rawValue ?? "unsaved")]" }

    /// Field by field; the path, the link's target and the device's and account's names by their bytes
    /// (SPEC §4a: names that differ only in Unicode normalization differ).
    public static func == (lhs: Record, rhs: Record) -> Bool {
        lhs.id == rhs.id && lhs.type == rhs.type && lhs.changeTag == rhs.changeTag && lhs.path == rhs.path
            && lhs.size == rhs.size && lhs.modified == rhs.modified && lhs.mode == rhs.mode
            && lhs.contentDigest == rhs.contentDigest && lhs.asset == rhs.asset
            && lhs.symlinkTarget.bytesEqual(rhs.symlinkTarget) && lhs.lastModifiedBy.bytesEqual(rhs.lastModifiedBy)
            && lhs.value.bytesEqual(rhs.value) && lhs.lastEditorName.bytesEqual(rhs.lastEditorName)
            && lhs.sealed == rhs.sealed
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(changeTag)
        hasher.combine(path)
        hasher.combine(size)
        hasher.combine(contentDigest)
    }

    /// Throws `.invalidArguments` when the fields contradict the record's type, or
    /// `.limitExceeded` when the encoded record is larger than `maximumEncodedSize`. A
    /// Value needs a key as its record name and valid JSON of at most
    /// `KeyValueLimits.maximumValueBytes` bytes (`quotaExceeded` beyond: a store's limit,
    /// which bounds its size in place of `maximumEncodedSize`).
    public func validate() throws(SyncError) {
        func fail(_ why: String) -> SyncError { SyncError(.invalidArguments, "record \(id) at \(path): \(why)") }
        guard mode <= 0o7777 else { throw fail("mode \(String(mode, radix: 8)) has bits beyond 07777") }
        guard size >= 0 else { throw fail("negative size") }
        switch type {
        case .document:
            guard let contentDigest, let asset else { throw fail("a Document needs a content digest and an asset") }
            guard asset.size == size, asset.contentDigest == contentDigest else {
                throw fail("the asset's size or digest does not match the record's")
            }
            guard symlinkTarget == nil else { throw fail("a Document has no symlink target") }
        case .folder:
            guard contentDigest == nil, asset == nil, symlinkTarget == nil else { throw fail("a Folder has no content") }
        case .symlink:
            guard let symlinkTarget, !symlinkTarget.isEmpty, !symlinkTarget.utf8.contains(0) else {
                throw fail("a Symlink needs a non-empty target without NUL")
            }
            guard contentDigest == nil, asset == nil else { throw fail("a Symlink has no content asset") }
        case .sealed:
            try validateSealed(fail)
            return
        case .value:
            guard let value else { throw fail("a Value needs its JSON") }
            guard contentDigest == nil, asset == nil, symlinkTarget == nil else { throw fail("a Value has no content asset or target") }
            guard KeyValueKey(recordName: id.recordName) != nil else { throw fail("a Value's record name is not a key's") }
            guard value.utf8.count <= KeyValueLimits.maximumValueBytes else {
                throw SyncError(.quotaExceeded, "the value of \(id) is \(value.utf8.count) bytes; a value is at most \(KeyValueLimits.maximumValueBytes) bytes")
            }
            guard size == Int64(value.utf8.count) else { throw fail("a Value's size is not its JSON's") }
            guard (try? JSONValue(parsing: value)) != nil else { throw fail("a Value's JSON does not parse") }
            guard sealed == nil else { throw fail("only a Sealed record has a sealed blob") }
            try validateNames(fail)
            return
        }
        guard value == nil else { throw fail("only a Value has a value") }
        guard sealed == nil else { throw fail("only a Sealed record has a sealed blob") }
        try validateNames(fail)
        try validateEncodedSize()
    }

    /// Throws `.limitExceeded` when the encoded record is larger than `maximumEncodedSize`.
    func validateEncodedSize() throws(SyncError) {
        // The JSON form is at most about 2.5 times the compact one: only a large record needs the
        // exact (and much dearer) JSON size, and one far below the limit (every file's record)
        // not even the compact one.
        if compactSizeBound * 5 / 2 < Record.maximumEncodedSize { return }
        let compactSize = CompactCoding.encode(self).count
        let encodedSize = compactSize * 5 / 2 < Record.maximumEncodedSize ? compactSize : wireJSONSize
        if encodedSize > Record.maximumEncodedSize {
            throw SyncError(.limitExceeded, "record \(id) at \(path) encodes to \(encodedSize) bytes, more than \(Record.maximumEncodedSize)")
        }
    }

    /// More than the compact encoding's size can be, from the lengths of the record's variable
    /// parts: every length prefix and fixed field (format, type, digests, numbers, the asset's
    /// header) fits in the 512 bytes added, and an asset entry (a digest and a length) in 48.
    var compactSizeBound: Int {
        var bound = 512 + (asset?.entries.count ?? 0) * 48 + (sealed?.bytes.count ?? 0)
        bound += id.zone.name.utf8.count + id.recordName.utf8.count + (changeTag?.rawValue.utf8.count ?? 0) + path.string.utf8.count
        bound += (symlinkTarget?.utf8.count ?? 0) + lastModifiedBy.utf8.count + (value?.utf8.count ?? 0) + (lastEditorName?.utf8.count ?? 0)
        return bound
    }

    /// The device's and the editor's names are at most 255 bytes each.
    func validateNames(_ fail: (String) -> SyncError) throws(SyncError) {
        if lastModifiedBy.utf8.count > 255 { throw fail("device name longer than 255 bytes") }
        if let lastEditorName, lastEditorName.utf8.count > 255 { throw fail("editor's account name longer than 255 bytes") }
    }
}

import Crypto
import Foundation

/// The sealed form of an encrypted item's private fields (`Record.sealed`): the bytes of
/// `FolderEpochKeys.sealRecord`. JSON: base64; compact: length and bytes.
public struct SealedBlob: Hashable, Sendable, Codable {
    public let bytes: Data

    public init(_ bytes: Data) { self.bytes = bytes }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let bytes = Data(base64Encoded: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a sealed blob is base64"))
        }
        self.bytes = bytes
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(bytes.base64EncodedString())
    }
}

/// `Sealed` records: an item of an encrypted folder as the server holds it (SPEC §13).
///
/// The server sees the record name, the change tag, the blob, and what it needs to keep
/// the item's storage: `size` (bytes the item occupies sealed: blob and chunk bodies, what
/// quotas count) and, for a document, `asset` listing its chunks by id with their sealed
/// lengths (what the collector follows), whose `contentDigest` is the SHA-256 of the blob —
/// it names this sealed version, nothing of the content. `path` is the record name (an
/// encrypted item has no place the server may know), `modified` 0, `mode` 0, the device
/// empty; kind, path, times, mode, digests, link target, device and account are sealed.
extension Record {
    /// The visible type every sealed record has, bound into its blob's associated data.
    public static let sealedType = RecordType.sealed.rawValue

    /// The wire record of `plaintext` sealed as `version` with `keys` into the wire zone
    /// `zone`; `chunks` lists the document's sealed chunks (the ids of `plaintext.asset`, in
    /// its order, with their sealed lengths), `depth` and `chunkCount` as in its asset. The
    /// change tag is `plaintext`'s (the one the save is based on). `storedBytes` is what the
    /// content takes sealed (chunk bodies and nodes), the chunks' lengths when not given.
    public static func sealing(_ plaintext: Record, version: UInt64, with keys: FolderEpochKeys, zone: ZoneID,
                               chunks asset: [ChunkRef] = [], depth: Int = 0, chunkCount: Int = 0, storedBytes: Int64? = nil) -> Record {
        let blob = keys.sealRecord(plaintext, version: version, zone: zone, visibleType: sealedType)
        let chunkBytes = storedBytes ?? asset.reduce(Int64(0)) { $0 + Int64($1.length) }
        let name = plaintext.id.recordName
        let reference = plaintext.type == .document
            ? AssetReference(depth: depth, entries: asset, chunkCount: chunkCount, size: chunkBytes, contentDigest: SHA256Digest(hashing: blob))
            : nil
        return Record(id: RecordID(zone: zone, recordName: name), type: .sealed, changeTag: plaintext.changeTag, path: RelativePath(name),
                      size: Int64(blob.count) + chunkBytes, modified: Timestamp(nanosecondsSince1970: 0), mode: 0, asset: reference,
                      lastModifiedBy: "", sealed: SealedBlob(blob))
    }

    /// The wire record of `plaintext`, a document whose content is `asset` (its `reference`
    /// must be `plaintext.asset`), sealed as `version`.
    public static func sealing(_ plaintext: Record, version: UInt64, with keys: FolderEpochKeys, zone: ZoneID, asset: SealedAsset) -> Record {
        sealing(plaintext, version: version, with: keys, zone: zone, chunks: asset.wireEntries, depth: asset.reference.depth,
                chunkCount: asset.reference.chunkCount, storedBytes: asset.storedBytes)
    }

    /// What `sealing` sealed, opened with `keyring`; `authenticationFailed` when the blob does
    /// not open as this record in this zone, or the visible chunk list is not the sealed
    /// asset's (ids, order, depth, count: reordered, cut or swapped by the server).
    public func opened(with keyring: FolderKeyring) throws(EncryptionError) -> OpenedRecord {
        guard type == .sealed, let sealed else { throw EncryptionError(.downgraded, "\(id) is a plain record where the folder is encrypted") }
        var opened = try keyring.openRecord(sealed.bytes, recordName: id.recordName, zone: id.zone, visibleType: Self.sealedType)
        // The visible chunk list is bound to the sealed one: the same ids in the same order,
        // the same depth and count, and its digest names this blob.
        let sealedAsset = opened.record.asset
        let bound = switch (asset, sealedAsset) {
        case (nil, nil): true
        case let (visible?, inside?):
            visible.contentDigest == SHA256Digest(hashing: sealed.bytes) && visible.depth == inside.depth
                && visible.chunkCount == inside.chunkCount && visible.entries.map(\.digest) == inside.entries.map(\.digest)
        default: false
        }
        guard bound else { throw EncryptionError(.authenticationFailed, "the chunk list of \(id) is not the one sealed with it") }
        opened.record.changeTag = changeTag
        // The account the device sealed in, when it wrote one; otherwise the one the server named.
        opened.record.lastEditorName = opened.record.lastEditorName ?? lastEditorName
        return opened
    }

    /// The checks `validate()` makes of a sealed record: a blob of a known suite, nothing
    /// private in the clear, names and size within bounds.
    func validateSealed(_ fail: (String) -> SyncError) throws(SyncError) {
        guard let sealed, sealed.bytes.count >= SealedChunk.overhead, let suite = sealed.bytes.first, CipherSuite(rawValue: suite) != nil else {
            throw fail("a Sealed record needs a sealed blob of a known cipher suite")
        }
        guard contentDigest == nil, symlinkTarget == nil, value == nil else {
            throw fail("a Sealed record has no content digest, link target or value in the clear")
        }
        try validateNames(fail)
        try validateEncodedSize()
    }
}

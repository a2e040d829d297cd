/// The content field group of a record: what the item holds, as a three-way merge compares it.
///
/// Two contents are the same when their type, content digest, symlink target, value and sealed
/// blob are the same;
/// `size` and `asset` describe the content and travel with it (they are not compared, so two
/// assets of the same bytes chunked or stored differently count as the same content).
struct RecordContent {
    var type: RecordType
    var contentDigest: SHA256Digest?
    var size: Int64
    var asset: AssetReference?
    var symlinkTarget: String?
    var value: String?
    var sealed: SealedBlob?

    init(of record: Record) {
        type = record.type
        contentDigest = record.contentDigest
        size = record.size
        asset = record.asset
        symlinkTarget = record.symlinkTarget
        value = record.value
        sealed = record.sealed
    }

    /// True when both describe the same content (type, digest and target; a target is
    /// compared as bytes, as a link's target is a path: SPEC §4a).
    func isSame(as other: RecordContent) -> Bool {
        type == other.type && contentDigest == other.contentDigest && symlinkTarget.bytesEqual(other.symlinkTarget)
            && value.bytesEqual(other.value) && sealed == other.sealed
    }

    /// Writes this content into `record`'s content fields.
    func apply(to record: inout Record) {
        record.type = type
        record.contentDigest = contentDigest
        record.size = size
        record.asset = asset
        record.symlinkTarget = symlinkTarget
        record.value = value
        record.sealed = sealed
    }
}

import Foundation

/// When two records are "the same": one definition, in three strengths, for every part of
/// docsync that compares records.
///
/// - `isSameRecord(as:)` — **the same record**: the same item in the same state. Every
///   field of `Record.Field` counts except the bookkeeping a save changes without changing
///   the item (`Record.Field.distinguishesRecords`): the change tag (given by the store on
///   each save), who saved it (device and account), and the asset (how the content's chunks are listed: the same
///   bytes chunked or stored otherwise are the same content, as digest and size say). A
///   device has nothing to send when its record is the same record as the server's.
/// - `hasSameContent(as:)` — its content part: the same type, content digest and link
///   target (`RecordContent`), whatever the path, mode or times. What a merge compares.
/// - `isEncoded(as:)` — identical: the same bytes in the compact form, the change tag and
///   every name byte for byte included (canonically equivalent names are different).
///   What an index compares a page's record with the acknowledged one by, without decoding.
///
/// `==` (`Hashable`) compares every field, the change tag included, and names (path, link
/// target, device) by their bytes, as Linux does (SPEC §4a).
extension Record {
    /// The same item in the same state, the bookkeeping fields aside (see above).
    public func isSameRecord(as other: Record) -> Bool {
        id == other.id && hasSameContent(as: other) && size == other.size && path == other.path
            && modified == other.modified && mode == other.mode
    }

    /// The same content: type, content digest and link target.
    public func hasSameContent(as other: Record) -> Bool {
        RecordContent(of: self).isSame(as: RecordContent(of: other))
    }

    /// Whether `compact` is this record's compact encoding (`CompactCoding.encode`), byte for byte.
    public func isEncoded(as compact: Data) -> Bool {
        CompactCoding.encode(self) == compact
    }
}

extension Record.Field {
    /// Whether two records that differ in this field are different records
    /// (`Record.isSameRecord`); false for the bookkeeping fields.
    public var distinguishesRecords: Bool {
        switch self {
        case .id, .type, .path, .size, .modified, .mode, .contentDigest, .symlinkTarget, .value, .sealed: true
        case .changeTag, .lastModifiedBy, .lastEditorName, .asset: false
        }
    }
}

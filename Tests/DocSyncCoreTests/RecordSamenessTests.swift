import DocSyncCore
import Foundation
import Testing

/// One definition of "the same record" (`Record.isSameRecord`): every field of the list
/// counts unless it is bookkeeping (`distinguishesRecords`), and the three strengths nest.
@Suite struct RecordSamenessTests {
    static let base = RecordFixtures.all[0].record

    /// `base` with `field` changed to another valid value. The switch is exhaustive: a new
    /// field cannot be added without saying here how it changes.
    static func changing(_ field: Record.Field, of record: Record) -> Record {
        var changed = record
        switch field {
        case .id: changed = Record(id: RecordID(zone: record.id.zone, recordName: "other"), type: record.type, changeTag: record.changeTag,
                                   path: record.path, size: record.size, modified: record.modified, mode: record.mode,
                                   contentDigest: record.contentDigest, asset: record.asset, symlinkTarget: record.symlinkTarget,
                                   lastModifiedBy: record.lastModifiedBy)
        case .type: changed.type = .folder
        case .changeTag: changed.changeTag = ChangeTag("another")
        case .path: changed.path = RelativePath("elsewhere.txt")
        case .size: changed.size += 1
        case .modified: changed.modified = Timestamp(nanosecondsSince1970: record.modified.nanosecondsSince1970 + 1)
        case .mode: changed.mode = 0o600
        case .contentDigest: changed.contentDigest = SHA256Digest(hashing: Data("other".utf8))
        case .asset: changed.asset = AssetReference(depth: 0, entries: [ChunkRef(digest: record.contentDigest!, length: Int(record.size))],
                                                    chunkCount: 1, size: record.size, contentDigest: record.contentDigest!)
        case .symlinkTarget: changed.symlinkTarget = "target"
        case .lastModifiedBy: changed.lastModifiedBy = "another device"
        case .value: changed.value = "\"another value\""
        case .lastEditorName: changed.lastEditorName = "another account"
        case .sealed: changed.sealed = SealedBlob(Data(repeating: 1, count: 40))
        }
        return changed
    }

    @Test(arguments: Record.Field.allCases)
    func aChangeToAFieldMakesAnotherRecordUnlessItIsBookkeeping(field: Record.Field) {
        let changed = Self.changing(field, of: Self.base)
        #expect(changed != Self.base, "the change changes something")
        #expect(changed.isSameRecord(as: Self.base) == !field.distinguishesRecords)
        #expect(Self.base.isSameRecord(as: changed) == !field.distinguishesRecords, "symmetric")
        #expect(!changed.isEncoded(as: CompactCoding.encode(Self.base)), "any change changes the encoding")
    }

    @Test(arguments: [(Record.Field.type, false), (.contentDigest, false), (.symlinkTarget, false),
                      (.path, true), (.mode, true), (.modified, true), (.size, true), (.changeTag, true), (.lastModifiedBy, true), (.lastEditorName, true), (.asset, true)])
    func theSameContentIgnoresPlaceMetadataAndBookkeeping(field: Record.Field, sameContent: Bool) {
        #expect(Self.changing(field, of: Self.base).hasSameContent(as: Self.base) == sameContent)
    }

    @Test func theBookkeepingFieldsAreTheTagTheAuthorsAndTheAsset() {
        #expect(Set(Record.Field.allCases.filter { !$0.distinguishesRecords }) == [.changeTag, .lastModifiedBy, .lastEditorName, .asset])
    }

    /// Canonically equivalent names are one `String` to Swift but two paths on disk:
    /// identical records have the same bytes, and records with such names differ.
    @Test func identicalMeansTheSameBytes() {
        var composed = Self.base, decomposed = Self.base
        composed.path = RelativePath("caf\u{E9}.txt")
        decomposed.path = RelativePath("cafe\u{301}.txt")
        #expect(composed != decomposed && !composed.isSameRecord(as: decomposed))
        #expect(composed.isEncoded(as: CompactCoding.encode(composed)))
        #expect(!decomposed.isEncoded(as: CompactCoding.encode(composed)))
    }
}

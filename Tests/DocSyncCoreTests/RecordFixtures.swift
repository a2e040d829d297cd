import DocSyncCore
import Foundation

/// The records whose encodings are pinned byte for byte under Fixtures/ (as
/// `record-NAME.json` and `record-NAME.compact`): one of each type, every optional field
/// absent and present, values at their limits, and names beyond ASCII. Built from literals
/// only, so they are the same on every run.
enum RecordFixtures {
    static let zone = ZoneID("Documents")

    /// A link target with every character JSON escapes by name, and more.
    static let symlinkTarget = "../a \"quoted\"\t\\back\\slash/€\u{8}\u{C}\r"

    static func digest(_ text: String) -> SHA256Digest { SHA256Digest(hashing: Data(text.utf8)) }

    static let all: [(name: String, record: Record)] = [
        ("document", Record(
            id: RecordID(zone: zone, recordName: "0190a1b2c3d4e5f60123456789abcdef"), type: .document, changeTag: ChangeTag("1a"),
            path: RelativePath("Projects/report.txt"), size: 70_000, modified: Timestamp(nanosecondsSince1970: 1_700_000_000_123_456_789),
            mode: 0o644, contentDigest: digest("report"),
            asset: AssetReference(depth: 0, entries: [ChunkRef(digest: digest("chunk 1"), length: 65_536), ChunkRef(digest: digest("chunk 2"), length: 4_464)],
                                  chunkCount: 2, size: 70_000, contentDigest: digest("report")),
            lastModifiedBy: "laptop")),
        ("document-manifest-tree", Record(
            id: RecordID(zone: zone, recordName: "big-video"), type: .document,
            path: RelativePath("Movies/holiday.mkv"), size: 5_368_709_120, modified: Timestamp(nanosecondsSince1970: 1_650_000_000_000_000_000),
            mode: 0o600, contentDigest: digest("video"),
            asset: AssetReference(depth: 1, entries: [ChunkRef(digest: digest("node 1"), length: 36_000), ChunkRef(digest: digest("node 2"), length: 144)],
                                  chunkCount: 5_004, size: 5_368_709_120, contentDigest: digest("video")),
            lastModifiedBy: "desktop")),
        ("document-empty", Record(
            id: RecordID(zone: zone, recordName: "empty"), type: .document, changeTag: ChangeTag("z"),
            path: RelativePath("empty"), size: 0, modified: Timestamp(nanosecondsSince1970: 0), mode: 0,
            contentDigest: digest(""), asset: AssetReference(depth: 0, entries: [], chunkCount: 0, size: 0, contentDigest: digest("")),
            lastModifiedBy: "x")),
        ("folder", Record(
            id: RecordID(zone: zone, recordName: "projects"), type: .folder, changeTag: ChangeTag("2b"),
            path: RelativePath("Projects"), modified: Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000), mode: 0o755,
            lastModifiedBy: "laptop")),
        ("folder-unsaved", Record(
            id: RecordID(zone: ZoneID("My Files_2.0"), recordName: "~!#$%&'()*+,-.:;<=>?@[]^_`{|}"), type: .folder,
            path: RelativePath("old"), modified: Timestamp(nanosecondsSince1970: -1_500_000_000_987_654_321), mode: 0o7777,
            lastModifiedBy: "")),
        ("symlink", Record(
            id: RecordID(zone: zone, recordName: "latest"), type: .symlink, changeTag: ChangeTag("k7/+="),
            path: RelativePath("links/latest"), size: Int64(symlinkTarget.utf8.count), modified: Timestamp(nanosecondsSince1970: Int64.max), mode: 0o777,
            symlinkTarget: symlinkTarget, lastModifiedBy: "laptop")),
        ("names-beyond-ascii", Record(
            id: RecordID(zone: ZoneID("Dokumente"), recordName: "names"), type: .document, changeTag: ChangeTag("3c"),
            path: RelativePath("Cafe\u{301}/café \u{1F389}/日本語/line\nbreak \u{1}\u{7F} \"q\" \\.txt"), size: 1,
            modified: Timestamp(nanosecondsSince1970: Int64.min), mode: 0o640, contentDigest: digest("!"),
            asset: AssetReference(depth: 0, entries: [ChunkRef(digest: digest("!"), length: 1)], chunkCount: 1, size: 1, contentDigest: digest("!")),
            lastModifiedBy: "Zoë’s ThinkPad \u{1F4BB}")),
        ("shared-edit", Record(
            // A version saved through docsync-server, which names the account that saved it (SPEC §11).
            id: RecordID(zone: zone, recordName: "minutes"), type: .document, changeTag: ChangeTag("5e"),
            path: RelativePath("Team/minutes.md"), size: 1, modified: Timestamp(nanosecondsSince1970: 1_760_000_000_000_000_000), mode: 0o644,
            contentDigest: digest("m"),
            asset: AssetReference(depth: 0, entries: [ChunkRef(digest: digest("m"), length: 1)], chunkCount: 1, size: 1, contentDigest: digest("m")),
            lastModifiedBy: "laptop", lastEditorName: "bob-ø")),
        ("sealed", {
            // An item of an encrypted folder as the server holds it (SPEC §13): a blob of
            // suite 1, epoch 7, a nonce, sealed bytes and a tag; its chunks by id and sealed length.
            let blob = Data([1, 0, 0, 0, 7] + Array(0xA0...0xAB) + Array("the sealed fields".utf8) + Array(repeating: 0xEE, count: 16))
            let chunks = [ChunkRef(digest: digest("sealed chunk"), length: 4_133)]
            return Record(
                id: RecordID(zone: ZoneID("e.abcdefghijklmnopqrstuvwxyz"), recordName: "0190a1b2c3d4e5f60123456789abcdef"), type: .sealed,
                changeTag: ChangeTag("6f"), path: RelativePath("0190a1b2c3d4e5f60123456789abcdef"), size: Int64(blob.count) + 4_133,
                modified: Timestamp(nanosecondsSince1970: 0), mode: 0,
                asset: AssetReference(depth: 0, entries: chunks, chunkCount: 1, size: 4_133, contentDigest: SHA256Digest(hashing: blob)),
                lastModifiedBy: "", lastEditorName: "alice", sealed: SealedBlob(blob))
        }()),
        ("value", {
            // A key of a key-value store (SPEC §12): a key beyond ASCII, JSON with every kind of value.
            var value = Record.value(
                .object(["name": .string("dark \"night\"\n"), "size": .number(14.5), "ligatures": .bool(true), "recent": .array([.string("a.txt"), .null, .number(-3)])]),
                for: KeyValueKey("editor.thème/1"), in: KeyValueStoreID("org.example.editor"),
                modified: Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000), device: "laptop")
            value.changeTag = ChangeTag("4d")
            return value
        }()),
    ]
}

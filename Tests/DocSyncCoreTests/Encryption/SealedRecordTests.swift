import DocSyncCore
import Foundation
import Testing

/// A record of an encrypted folder on the wire (`Record.sealing`, `opened(with:)`): the server
/// sees the name, the blob and the chunk list; every change it makes to what it holds is
/// caught when a device opens the record.
@Suite struct SealedRecordTests {
    static let keyring = FolderKeyring([try! FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: 1)])
    static let zone = ZoneID("e.aaaaaaaaaaaaaaaaaaaaaaaaaa")

    /// A document of an encrypted folder: its one chunk named by its MAC, as the folder's are.
    static func document(_ name: String, path: String) -> Record {
        let content = Data(path.utf8)
        let digest = SHA256Digest(hashing: content), id = keyring.current.chunkID(of: content)
        return Record(id: RecordID(zone: ZoneID("Documents"), recordName: name), type: .document, changeTag: ChangeTag("4"),
                      path: RelativePath(path), size: Int64(content.count), modified: Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000),
                      mode: 0o600, contentDigest: digest,
                      asset: AssetReference(depth: 0, entries: [ChunkRef(digest: id, length: content.count)], chunkCount: 1,
                                            size: Int64(content.count), contentDigest: digest),
                      lastModifiedBy: "laptop", lastEditorName: "alice")
    }

    /// The sealed chunks of `document`: its chunk's id, and the length sealed.
    static func chunks(of record: Record) -> [ChunkRef] {
        record.asset!.entries.map { ChunkRef(digest: $0.digest, length: $0.length + SealedChunk.overhead) }
    }

    @Test func theServerSeesNoPrivateField() throws {
        let plain = Self.document("r1", path: "Taxes/return 2026.pdf")
        let wire = Record.sealing(plain, version: 3, with: Self.keyring.current, zone: Self.zone, chunks: Self.chunks(of: plain), chunkCount: 1)
        try wire.validate()
        #expect(wire.type == .sealed && wire.path == RelativePath("r1") && wire.mode == 0 && wire.modified == Timestamp(nanosecondsSince1970: 0))
        #expect(wire.contentDigest == nil && wire.lastModifiedBy.isEmpty && wire.symlinkTarget == nil)
        #expect(wire.size == Int64(wire.sealed!.bytes.count) + plain.size + Int64(SealedChunk.overhead), "the sealed bytes it takes: blob and chunk bodies")
        let json = String(decoding: try WireCoding.encode(wire), as: UTF8.self)
        for secret in ["Taxes", "return", "laptop", plain.contentDigest!.hex, "Documents"] { #expect(!json.contains(secret), "\(secret) in \(json)") }
        let opened = try wire.opened(with: Self.keyring)
        #expect(opened.record == plain && opened.version == 3)
    }

    enum ListAttack: CaseIterable, Sendable { case reordered, cut, swapped, anotherDigest, dropped }

    @Test(arguments: ListAttack.allCases)
    func aChunkListTheServerChangedIsCaught(_ attack: ListAttack) throws {
        let digests = ["a", "b", "c"].map { SHA256Digest(hashing: Data($0.utf8)) }
        var plain = Self.document("r1", path: "a.bin")
        plain.asset = AssetReference(depth: 0, entries: digests.map { ChunkRef(digest: $0, length: 10) }, chunkCount: 3, size: 30, contentDigest: plain.contentDigest!)
        plain.size = 30
        let wire = Record.sealing(plain, version: 1, with: Self.keyring.current, zone: Self.zone, chunks: Self.chunks(of: plain), chunkCount: 3)
        #expect(try wire.opened(with: Self.keyring).record == plain)
        let asset = try #require(wire.asset)
        var changed = wire
        func list(_ entries: [ChunkRef], digest: SHA256Digest? = nil) -> AssetReference {
            AssetReference(depth: 0, entries: entries, chunkCount: asset.chunkCount, size: asset.size, contentDigest: digest ?? asset.contentDigest)
        }
        switch attack {
        case .reordered: changed.asset = list(asset.entries.reversed())
        case .cut: changed.asset = list(Array(asset.entries.prefix(2)))
        case .swapped: changed.asset = list([asset.entries[0], ChunkRef(digest: SHA256Digest(hashing: Data("z".utf8)), length: 43), asset.entries[2]])
        case .anotherDigest: changed.asset = list(asset.entries, digest: SHA256Digest(hashing: Data("another".utf8)))
        case .dropped: changed.asset = nil
        }
        let caught = #expect(throws: EncryptionError.self) { _ = try changed.opened(with: Self.keyring) }
        #expect(caught?.kind == .authenticationFailed)
    }

    @Test func aBlobSwappedBetweenTwoRecordsIsCaught() throws {
        let first = Record.sealing(Self.document("r1", path: "a.txt"), version: 1, with: Self.keyring.current, zone: Self.zone)
        var second = Record.sealing(Self.document("r2", path: "b.txt"), version: 1, with: Self.keyring.current, zone: Self.zone)
        second.sealed = first.sealed
        let caught = #expect(throws: EncryptionError.self) { _ = try second.opened(with: Self.keyring) }
        #expect(caught?.kind == .authenticationFailed)
    }

    @Test func aPlainRecordWhereTheFolderIsEncryptedIsADowngrade() throws {
        let caught = #expect(throws: EncryptionError.self) { _ = try Self.document("r1", path: "a.txt").opened(with: Self.keyring) }
        #expect(caught?.kind == .downgraded)
    }
}

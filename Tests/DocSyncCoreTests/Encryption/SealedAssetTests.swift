import DocSyncCore
import Foundation
import Testing

/// A file's content sealed and opened again (`sealAsset`, `openAsset`): small and large
/// files (a manifest tree), identical chunks stored once, and a server that changes what it
/// stores caught.
@Suite struct SealedAssetTests {
    static let keyring = FolderKeyring([try! FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: 1)])
    static let zone = ZoneID("e.aaaaaaaaaaaaaaaaaaaaaaaaaa")

    static func content(_ count: Int, seed: UInt64) -> Data {
        var random = SplitMix64(seed: seed)
        return Data((0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }

    /// What the server stores of `asset`, by id.
    static func stored(_ asset: SealedAsset) -> [SHA256Digest: Data] {
        var stored: [SHA256Digest: Data] = [:]
        for chunk in asset.chunks { stored[chunk.id] = chunk.body }
        for node in asset.nodes { stored[node.ref.digest] = node.bytes }
        return stored
    }

    @Test(arguments: [0, 1, 4_096, 300_000, 3_000_000])
    func contentComesBackWhole(size: Int) throws {
        let content = Self.content(size, seed: UInt64(size))
        let asset = Self.keyring.current.sealAsset(content, zone: Self.zone)
        #expect(asset.reference.size == Int64(size) && asset.reference.contentDigest == SHA256Digest(hashing: content))
        #expect(try Self.keyring.openAsset(asset.reference, zone: Self.zone, stored: Self.stored(asset)) == content)
        #expect(asset.wireEntries.map(\.digest) == asset.reference.entries.map(\.digest))
        if size == 3_000_000 { #expect(asset.reference.depth > 0 && !asset.nodes.isEmpty, "a large file gets a manifest tree") }
        // No chunk is named or stored by the SHA-256 of its content.
        for chunk in asset.chunks { #expect(!Self.stored(asset).keys.contains(SHA256Digest(hashing: try Self.keyring.openChunk(chunk.body, id: chunk.id, zone: Self.zone)))) }
    }

    @Test func identicalChunksAreStoredOnce() throws {
        let block = Self.content(200_000, seed: 9)
        let asset = Self.keyring.current.sealAsset(block + block, zone: Self.zone)
        #expect(asset.chunks.count < asset.reference.chunkCount, "\(asset.chunks.count) of \(asset.reference.chunkCount)")
    }

    @Test func aBodyTheServerSwappedIsCaught() throws {
        let asset = Self.keyring.current.sealAsset(Self.content(300_000, seed: 3), zone: Self.zone)
        var stored = Self.stored(asset)
        let ids = asset.chunks.map(\.id)
        try #require(ids.count >= 2)
        (stored[ids[0]], stored[ids[1]]) = (stored[ids[1]], stored[ids[0]])
        let caught = #expect(throws: EncryptionError.self) { _ = try Self.keyring.openAsset(asset.reference, zone: Self.zone, stored: stored) }
        #expect(caught?.kind == .authenticationFailed)
    }

    @Test func aWireRecordOfASealedAssetOpensAndListsItsChunks() throws {
        let content = Self.content(3_000_000, seed: 5)
        let keys = Self.keyring.current
        let asset = keys.sealAsset(content, zone: Self.zone)
        let plain = Record(id: RecordID(zone: ZoneID("Documents"), recordName: "big"), type: .document, path: RelativePath("big.bin"),
                           size: Int64(content.count), modified: Timestamp(nanosecondsSince1970: 1), mode: 0o644,
                           contentDigest: asset.reference.contentDigest, asset: asset.reference, lastModifiedBy: "laptop")
        let wire = Record.sealing(plain, version: 1, with: keys, zone: Self.zone, asset: asset)
        try wire.validate()
        #expect(wire.size == Int64(wire.sealed!.bytes.count) + asset.storedBytes)
        let opened = try wire.opened(with: Self.keyring)
        #expect(try Self.keyring.openAsset(try #require(opened.record.asset), zone: Self.zone, stored: Self.stored(asset)) == content)
    }
}

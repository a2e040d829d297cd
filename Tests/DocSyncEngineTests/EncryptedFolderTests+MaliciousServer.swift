import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §13's malicious server, between one device (beta) and the store: whatever it alters,
/// moves, replays or forges is refused with the `EncryptionError` kind that names it, nothing
/// of it is written to the folder, the item shows a per-file error, nothing loops, every
/// other file keeps syncing, and a genuine change of the item afterwards is applied.
extension EncryptedFolderTests {
    /// What the server does. Each names what it changes: a record's blob (where it is served,
    /// which version, whether sealed at all, which cipher suite it names), the chunk list the
    /// server sees beside it, a large file's manifest nodes (stored in the clear under their
    /// SHA-256), or a chunk's sealed body.
    enum Attack: String, CaseIterable, Sendable {
        // The record.
        case swapTwoRecordsBlobs, moveABlobToANewRecordName, moveABlobFromAnotherZone, replayAnOlderVersion, injectAPlainRecord,
             claimTheWholePagePlain, injectARecordSealedUnderAnotherKey, injectARecordOfAnEpochWithoutKey, nameAnOlderSuiteInARecord,
             nameAnUnknownSuiteInARecord
        // The chunk list beside it, and a large file's manifest nodes.
        case reorderTheChunkList, cutTheChunkList, reorderAManifestNode, cutAManifestNode, serveAnotherValidNodeUnderItsID
        // A chunk's body.
        case swapTwoChunksBodies, serveAnotherZonesChunkUnderItsID, nameAnOlderSuiteInAChunk
    }

    /// Another encrypted zone's name on the wire: what the server moves things from.
    static let otherZone = ZoneID("e.bbbbbbbbbbbbbbbbbbbbbbbbbb")

    @Test(arguments: Attack.allCases)
    func aTamperingServerIsRefusedAndEverythingElseSyncs(_ attack: Attack) async throws {
        let tampering = TamperingBackend(wrapping: store)
        let alpha = try device("alpha"), beta = try device("beta", through: tampering)
        try alpha.write("target.txt", "target, first version\n")
        try alpha.write("other.txt", "other, first version\n")
        #expect(await eventually(timeout: .seconds(60)) {
            beta.read("target.txt") == "target, first version\n" && beta.read("other.txt") == "other, first version\n" && beta.engine.isSettled
        })
        let target = try #require(try await recordName(at: "target.txt"))
        let other = try #require(try await recordName(at: "other.txt"))
        let forged = Data("forged by the server\n".utf8)
        let keys = self.keys, keyring = self.keyring
        // What alpha writes as the target's second version, once the attack is armed (nil:
        // the attack needs no change of alpha's, or makes its own).
        var second: String? = "target, second version\n"
        var expected = "target, first version\n"
        // Where the refusal shows: the target's path, and for some attacks other items too.
        var refusedAt = ["target.txt"]
        let kind: EncryptionError.Kind
        switch attack {
        case .swapTwoRecordsBlobs:
            tampering.arm(.swapBlobs(victim: target, source: other))
            kind = .authenticationFailed
        case .moveABlobToANewRecordName:
            // The target's sealed record served again under a record name of its own: a copy
            // of the file the server made up.
            let sealed = try #require(tampering.history(of: target).last)
            let copy = sealed.relabelled(RecordID(zone: Self.zone, recordName: RecordID.newName()))
            tampering.arm(.inject(copy))
            refusedAt = ["record \(copy.id.recordName)"]
            second = nil
            kind = .authenticationFailed
        case .moveABlobFromAnotherZone:
            // The item sealed with this folder's very keys, but for another zone, served as
            // this zone's: only the zone bound into the blob tells them apart.
            let plaintext = try #require(tampering.history(of: target).last).opened(with: keyring).record
            let asset = keys.sealAsset(forged, zone: Self.otherZone)
            try await store.uploadChunks(asset.chunks.map(ChunkUpload.init(sealed:)))
            var moved = plaintext
            (moved.size, moved.contentDigest, moved.asset) = (Int64(forged.count), asset.reference.contentDigest, asset.reference)
            let elsewhere = Record.sealing(moved, version: 1_000, with: keys, zone: Self.otherZone, asset: asset)
            tampering.arm(.inject(elsewhere.relabelled(RecordID(zone: Self.zone, recordName: target))))
            second = nil
            kind = .authenticationFailed
        case .replayAnOlderVersion:
            try alpha.write("target.txt", "target, second version\n")
            #expect(await eventually(timeout: .seconds(60)) { beta.read("target.txt") == "target, second version\n" })
            expected = "target, second version\n"
            let first = try #require(tampering.history(of: target).first)
            #expect(try first.opened(with: keyring).version < tampering.history(of: target).last!.opened(with: keyring).version)
            tampering.arm(.inject(first))
            second = nil
            kind = .rolledBack
        case .injectAPlainRecord:
            let asset = try await store.storeAsset(forged).reference
            tampering.arm(.inject(Record(id: RecordID(zone: Self.zone, recordName: target), type: .document, path: RelativePath("target.txt"),
                                         size: Int64(forged.count), modified: Timestamp.now, mode: 0o644, contentDigest: asset.contentDigest,
                                         asset: asset, lastModifiedBy: "alpha")))
            second = nil
            kind = .downgraded
        case .claimTheWholePagePlain:
            // Two changes in one page (beta hears of neither until both are saved), the whole
            // page served as plain records with the server's content.
            tampering.setBlind(true)
            try alpha.write("target.txt", "target, second version\n")
            try alpha.write("claimed-plain.txt", "a new file alpha sealed\n")
            #expect(try await eventually(timeout: .seconds(60)) {
                let saved = try await self.openedRecords()
                return saved["claimed-plain.txt"] != nil && saved["target.txt"]?.contentDigest == SHA256Digest(hashing: Data("target, second version\n".utf8))
            })
            let claimed = try #require(try await recordName(at: "claimed-plain.txt"))
            let asset = try await store.storeAsset(forged).reference
            tampering.arm(.rewritePage(holding: target) { wire in
                guard var plain = try? wire.opened(with: keyring).record else { return wire }
                if plain.type == .document { (plain.size, plain.contentDigest, plain.asset) = (Int64(forged.count), asset.contentDigest, asset) }
                return plain
            })
            tampering.setBlind(false)
            beta.engine.noteRemoteChange()
            refusedAt = ["target.txt", "record \(claimed)"]
            second = nil
            kind = .downgraded
        case .injectARecordSealedUnderAnotherKey, .injectARecordOfAnEpochWithoutKey:
            let epoch: UInt32 = attack == .injectARecordSealedUnderAnotherKey ? 1 : 2
            let stranger = try FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: epoch)
            let sealed = stranger.sealAsset(forged, zone: Self.zone)
            try await store.uploadChunks(sealed.chunks.map(ChunkUpload.init(sealed:)))
            let plain = Record(id: RecordID(zone: Self.zone, recordName: target), type: .document, path: RelativePath("target.txt"),
                               size: Int64(forged.count), modified: Timestamp.now, mode: 0o644, contentDigest: sealed.reference.contentDigest,
                               asset: sealed.reference, lastModifiedBy: "alpha")
            tampering.arm(.inject(Record.sealing(plain, version: 1_000, with: stranger, zone: Self.zone, asset: sealed)))
            second = nil
            kind = epoch == 1 ? .authenticationFailed : .missingKey
        case .nameAnOlderSuiteInARecord, .nameAnUnknownSuiteInARecord:
            // Suite 0 is older than any (none is older than 1 yet); the next one is unknown here.
            let suite = attack == .nameAnOlderSuiteInARecord ? 0 : CipherSuite.current.rawValue + 1
            tampering.arm(.rewrite(victim: target) { wire in
                guard var blob = wire.sealed?.bytes else { return wire }
                blob[blob.startIndex] = suite
                var forged = wire
                forged.sealed = SealedBlob(blob)
                return forged
            })
            kind = .unsupportedSuite
        case .reorderTheChunkList, .cutTheChunkList:
            // A second version of several chunks, listed beside the blob (in the clear).
            second = Self.text(120_000, seed: 1)
            let cut = attack == .cutTheChunkList
            tampering.arm(.rewrite(victim: target) { wire in
                guard let asset = wire.asset, asset.entries.count >= 2 else { return wire }
                var entries = asset.entries
                if cut { entries.removeLast() } else { entries.swapAt(0, 1) }
                let lost = cut ? asset.entries.last! : nil
                var forged = wire
                forged.asset = AssetReference(depth: asset.depth, entries: entries, chunkCount: asset.chunkCount - (lost == nil ? 0 : 1),
                                              size: asset.size - Int64(lost?.length ?? 0), contentDigest: asset.contentDigest)
                return forged
            })
            kind = .authenticationFailed
        case .reorderAManifestNode, .cutAManifestNode, .serveAnotherValidNodeUnderItsID:
            // A second version large enough for a manifest tree: its nodes are stored in the
            // clear, named by their SHA-256; the server changes every one it serves.
            second = Self.text(3_000_000, seed: 2)
            #expect(keys.sealAsset(Data(second!.utf8), zone: Self.zone).reference.depth >= 1, "the second version has a manifest tree")
            let another = try #require(keys.sealAsset(Data(Self.text(3_000_000, seed: 3).utf8), zone: Self.zone).nodes.first).bytes
            tampering.arm(.rewriteChunks { id, body in
                guard ManifestTree.isNode(body, storedAs: id) else { return nil }
                switch attack {
                case .reorderAManifestNode: return Self.node(body, swappingEntries: 0, 1)
                case .cutAManifestNode: return body.dropLast(36)
                default: return another
                }
            })
            kind = .authenticationFailed
        case .swapTwoChunksBodies:
            tampering.arm(.swapChunkBodies(victim: keys.chunkID(of: Data(second!.utf8)), source: keys.chunkID(of: Data("other, first version\n".utf8))))
            kind = .authenticationFailed
        case .serveAnotherZonesChunkUnderItsID:
            // The same content sealed with the same keys under the same id, for another zone.
            let content = Data(second!.utf8), id = keys.chunkID(of: content)
            let elsewhere = keys.sealChunk(content, id: id, zone: Self.otherZone).body
            tampering.arm(.rewriteChunks { chunk, _ in chunk == id ? elsewhere : nil })
            kind = .authenticationFailed
        case .nameAnOlderSuiteInAChunk:
            let id = keys.chunkID(of: Data(second!.utf8))
            tampering.arm(.rewriteChunks { chunk, body in
                guard chunk == id else { return nil }
                var forged = body
                forged[forged.startIndex] = 0
                return forged
            })
            kind = .unsupportedSuite
        }
        if let second { try alpha.write("target.txt", second) }
        // Another change: the page that carries it carries the attack too (or follows it).
        try alpha.write("after-the-attack.txt", "still syncing\n")
        #expect(await eventually(timeout: .seconds(60)) { beta.read("after-the-attack.txt") == "still syncing\n" })
        // Refused once and settled: nothing loops on it (a retry would keep the engine busy).
        #expect(await eventually(timeout: .seconds(60)) {
            refusedAt.allSatisfy { path in beta.status.problems.contains { $0.path == path && $0.message.contains(kind.rawValue) } } && beta.engine.isSettled
        }, "\(beta.status.problems)")
        #expect(beta.read("target.txt") == expected, "nothing of the refused change is written")
        #expect(beta.names() == ["after-the-attack.txt", "other.txt", "target.txt"])
        #expect(beta.read("other.txt") == "other, first version\n")
        #expect(!beta.keepsVersion("forged by the server\n"))
        // A genuine change of the item afterwards is applied.
        tampering.arm(nil)
        try alpha.write("target.txt", "target, third version\n")
        #expect(await eventually(timeout: .seconds(60)) { beta.read("target.txt") == "target, third version\n" && beta.engine.isSettled })
    }

    /// Every record the store holds in the zone, opened, by path.
    func openedRecords() async throws -> [String: Record] {
        var found: [String: Record] = [:]
        for wire in try await storedRecords() {
            if let record = try? wire.opened(with: keyring).record { found[record.path.string] = record }
        }
        return found
    }

    /// About `count` bytes of text: lines of seeded random letters, which the chunker cuts
    /// into chunks of a few kilobytes (over 64 of them make a manifest tree).
    static func text(_ count: Int, seed: UInt64) -> String {
        var random = SeededRandom(seed: seed)
        let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        var bytes = random.bytes(count).map { letters[Int($0) % letters.count] }
        for index in stride(from: 63, to: bytes.count, by: 64) { bytes[index] = UInt8(ascii: "\n") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A manifest node's bytes (`DSM1`, then 36-byte entries) with entries `a` and `b` swapped.
    static func node(_ bytes: Data, swappingEntries a: Int, _ b: Int) -> Data {
        var entries = Array(bytes.dropFirst(4))
        let size = 36
        for offset in 0 ..< size { entries.swapAt(a * size + offset, b * size + offset) }
        return bytes.prefix(4) + Data(entries)
    }
}

extension Record {
    /// This record as a server serves it under `id` (another record name, or zone): a sealed
    /// record's visible path is its record name.
    func relabelled(_ id: RecordID) -> Record {
        Record(id: id, type: type, changeTag: changeTag, path: type == .sealed ? RelativePath(id.recordName) : path, size: size, modified: modified,
               mode: mode, contentDigest: contentDigest, asset: asset, symlinkTarget: symlinkTarget, lastModifiedBy: lastModifiedBy,
               value: value, lastEditorName: lastEditorName, sealed: sealed)
    }
}

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
    enum Attack: String, CaseIterable, Sendable {
        case swapTwoRecordsBlobs, replayAnOlderVersion, injectAPlainRecord, injectARecordSealedUnderAnotherKey,
             injectARecordOfAnEpochWithoutKey, swapTwoChunksBodies
    }

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
        var expected = "target, first version\n"
        let kind: EncryptionError.Kind
        switch attack {
        case .swapTwoRecordsBlobs:
            tampering.arm(.swapBlobs(victim: target, source: other))
            try alpha.write("target.txt", "target, second version\n")
            kind = .authenticationFailed
        case .replayAnOlderVersion:
            try alpha.write("target.txt", "target, second version\n")
            #expect(await eventually(timeout: .seconds(60)) { beta.read("target.txt") == "target, second version\n" })
            expected = "target, second version\n"
            let first = try #require(tampering.history(of: target).first)
            #expect(try first.opened(with: keyring).version < tampering.history(of: target).last!.opened(with: keyring).version)
            tampering.arm(.inject(first))
            kind = .rolledBack
        case .injectAPlainRecord:
            let asset = try await store.storeAsset(forged).reference
            tampering.arm(.inject(Record(id: RecordID(zone: Self.zone, recordName: target), type: .document, path: RelativePath("target.txt"),
                                         size: Int64(forged.count), modified: Timestamp.now, mode: 0o644, contentDigest: asset.contentDigest,
                                         asset: asset, lastModifiedBy: "alpha")))
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
            kind = epoch == 1 ? .authenticationFailed : .missingKey
        case .swapTwoChunksBodies:
            let second = Data("target, second version\n".utf8)
            tampering.arm(.swapChunkBodies(victim: keys.chunkID(of: second), source: keys.chunkID(of: Data("other, first version\n".utf8))))
            try alpha.write("target.txt", "target, second version\n")
            kind = .authenticationFailed
        }
        // Another change: the page that carries it carries the attack too (or follows it).
        try alpha.write("after-the-attack.txt", "still syncing\n")
        #expect(await eventually(timeout: .seconds(60)) { beta.read("after-the-attack.txt") == "still syncing\n" })
        // Refused once and settled: nothing loops on it (a retry would keep the engine busy).
        #expect(await eventually(timeout: .seconds(60)) {
            beta.status.problems.contains { $0.path == "target.txt" && $0.message.contains(kind.rawValue) } && beta.engine.isSettled
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
}

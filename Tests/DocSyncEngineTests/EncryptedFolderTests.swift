import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §13 on in-process devices sharing one store: an encrypted folder syncs through
/// sealed records and chunks only, merges as a plain one does, refuses whatever a malicious
/// server alters or replays (writing nothing for that item, syncing everything else), and
/// stands still — sending, applying and deleting nothing — while its keys are withheld.
@Suite("SPEC §13: an encrypted folder")
struct EncryptedFolderTests {
    static let zone = ZoneID("e.aaaaaaaaaaaaaaaaaaaaaaaaaa")
    let base: TemporaryDirectory
    let store: MemoryBackend
    let keys: FolderEpochKeys
    let keyring: FolderKeyring

    init() throws {
        base = try TemporaryDirectory("docsync-encrypted")
        store = MemoryBackend(clock: { Timestamp.now })
        keys = try FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: 1)
        keyring = FolderKeyring([keys])
    }

    func device(_ name: String, through backend: (any StorageBackend)? = nil, keys source: FolderKeySource? = nil) throws -> EngineDevice {
        try EngineDevice(name: name, base: base.url, backend: backend ?? store, zone: Self.zone, encryption: source ?? FolderKeySource(keyring))
    }

    /// Every record the store holds in the zone.
    func storedRecords() async throws -> [Record] {
        try await store.fetchChanges(in: Self.zone, since: nil, limit: 10_000).changed
    }

    /// The record name of the item at `path`, read by opening the store's records.
    func recordName(at path: String) async throws -> String? {
        try await storedRecords().first { (try? $0.opened(with: keyring).record.path.string) == path }?.id.recordName
    }

    // MARK: converging

    @Test func twoDevicesConvergeAndTheServerHoldsOnlySealedRecords() async throws {
        let alpha = try device("alpha"), beta = try device("beta")
        var generator = SeededRandom(seed: 13)
        // Over 64 chunks: its manifest is a tree whose nodes the server sees (ids and lengths only).
        let photo = Data(generator.bytes(1_500_000))
        let figures = Data("the quarterly figures: 1, 2, 3\n".utf8), notes = Data("# notes written on beta\n".utf8)
        try FileManager.default.createDirectory(at: alpha.file("quarterly-reports"), withIntermediateDirectories: true)
        try figures.write(to: alpha.file("quarterly-reports/figures-q3.txt"))
        try photo.write(to: alpha.file("holiday-photo.raw"))
        try FileManager.default.createSymbolicLink(atPath: alpha.file("latest-figures").path, withDestinationPath: "quarterly-reports/figures-q3.txt")
        alpha.rescan()
        try notes.write(to: beta.file("notes-from-beta.md"))
        beta.rescan()
        #expect(await eventually(timeout: .seconds(60)) {
            alpha.engine.isSettled && beta.engine.isSettled && sameTrees(alpha, beta) && beta.names().count == 4
        })
        #expect(beta.names() == ["holiday-photo.raw", "latest-figures", "notes-from-beta.md", "quarterly-reports"])

        let records = try await storedRecords()
        #expect(records.count == 5)
        let names = ["quarterly-reports", "figures-q3.txt", "holiday-photo.raw", "latest-figures", "notes-from-beta.md"]
        let contentDigests = [figures, photo, notes].map { SHA256Digest(hashing: $0).hex }
        for record in records {
            #expect(record.type == .sealed && record.lastModifiedBy.isEmpty && record.contentDigest == nil && record.symlinkTarget == nil)
            let json = String(decoding: try WireCoding.encoder.encode(record), as: UTF8.self)
            for secret in names + contentDigests { #expect(!json.contains(secret), "\(secret) is in the clear in \(json.prefix(200))") }
            let opened = try record.opened(with: keyring)
            #expect(opened.version >= 1)
        }
        // No chunk of any file is stored under its SHA-256 (nor under the plain chunker's ids).
        var plainIDs: [SHA256Digest] = []
        for content in [figures, photo, notes] {
            plainIDs.append(SHA256Digest(hashing: content))
            plainIDs += content.withUnsafeBytes { AssetChunker().chunk($0) }.chunks.map(\.digest)
        }
        #expect(try await store.missingChunks(plainIDs) == Set(plainIDs))
        // The index holds the opened records: local queries see names, kinds and sizes.
        let found = try beta.engine.items(matching: MetadataPredicate(parsing: "name LIKE '*.raw'"))
        #expect(found.map(\.path) == ["holiday-photo.raw"] && found.first?.size == Int64(photo.count))
    }

    @Test func editsOnBothSidesMerge() async throws {
        let tampering = TamperingBackend(wrapping: store)
        let alpha = try device("alpha"), beta = try device("beta", through: tampering)
        try alpha.write("plan.txt", "one\ntwo\nthree\nfour\nfive\n")
        #expect(await eventually(timeout: .seconds(60)) { beta.read("plan.txt") == "one\ntwo\nthree\nfour\nfive\n" && beta.engine.isSettled })
        // Beta hears nothing of alpha's edit: its own save meets alpha's sealed version.
        tampering.setBlind(true)
        let fetchesBefore = tampering.fetches
        beta.engine.noteRemoteChange()
        #expect(await eventually(timeout: .seconds(60)) { tampering.fetches > fetchesBefore })
        try alpha.write("plan.txt", "ONE\ntwo\nthree\nfour\nfive\n")
        #expect(await eventually(timeout: .seconds(60)) { alpha.engine.isSettled })
        try beta.write("plan.txt", "one\ntwo\nthree\nfour\nFIVE\n")
        let merged = "ONE\ntwo\nthree\nfour\nFIVE\n"
        #expect(await eventually(timeout: .seconds(60)) { beta.read("plan.txt") == merged })
        tampering.setBlind(false)
        beta.engine.noteRemoteChange()
        #expect(await eventually(timeout: .seconds(60)) {
            alpha.read("plan.txt") == merged && alpha.engine.isSettled && beta.engine.isSettled && sameTrees(alpha, beta)
        })
        #expect(alpha.names() == ["plan.txt"] && alpha.status.conflicts == 0 && beta.status.conflicts == 0)
    }

    // MARK: a malicious server

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

    // MARK: keys withheld

    @Test func aDeviceAwaitingApprovalSendsNothingThenSyncsOnceApproved() async throws {
        let alpha = try device("alpha")
        try alpha.write("from-alpha.txt", "alpha's\n")
        #expect(await eventually(timeout: .seconds(60)) { alpha.engine.isSettled && alpha.status.items == 1 })
        let source = FolderKeySource(.awaitingApproval)
        let tampering = TamperingBackend(wrapping: store)
        let gamma = try device("gamma", through: tampering, keys: source)
        try gamma.write("from-gamma.txt", "gamma's\n")
        #expect(await eventually(timeout: .seconds(60)) { gamma.status.state == .awaitingApproval })
        #expect(gamma.engine.held?.reason == HeldDeletions.awaitingApproval)
        #expect(gamma.status.message?.contains("docs-status devices approve") == true)
        // A request to sync, and a person's action, are taken and change nothing.
        gamma.engine.requestSync()
        let outcomes = await gamma.engine.perform(.restore(RelativePath("from-gamma.txt"), version: nil))
        #expect(outcomes.allSatisfy { !$0.done && $0.message?.contains("awaiting approval") == true })
        #expect(!gamma.engine.hasInput && !gamma.engine.isSettled)
        #expect(tampering.modifyCalls == 0 && tampering.chunkUploads == 0 && tampering.fetches == 0)
        #expect(gamma.names() == ["from-gamma.txt"] && alpha.names() == ["from-alpha.txt"])

        source.update(.available(keyring))
        #expect(await eventually(timeout: .seconds(60)) {
            gamma.engine.isSettled && alpha.engine.isSettled && sameTrees(alpha, gamma) && alpha.names().count == 2
        })
        #expect(gamma.status.state == .idle && gamma.engine.held == nil)
    }

    @Test func aFolderThatCannotBeDecryptedDeletesNothing() async throws {
        let source = FolderKeySource(keyring)
        let tampering = TamperingBackend(wrapping: store)
        let alpha = try device("alpha"), beta = try device("beta", through: tampering, keys: source)
        try alpha.write("keep.txt", "kept\n")
        #expect(await eventually(timeout: .seconds(60)) { beta.read("keep.txt") == "kept\n" && beta.engine.isSettled })
        source.update(.cannotDecrypt(reason: "this device's key file is gone"))
        let saves = tampering.modifyCalls
        try FileManager.default.removeItem(at: beta.file("keep.txt"))
        beta.rescan()
        #expect(await eventually(timeout: .seconds(60)) { beta.status.state == .cannotDecrypt && !beta.engine.hasInput })
        #expect(beta.engine.held?.reason == HeldDeletions.cannotDecrypt)
        #expect(beta.status.message?.contains("this device's key file is gone") == true)
        try alpha.write("new.txt", "new\n")
        beta.engine.noteRemoteChange()
        #expect(await eventually(timeout: .seconds(60)) { !beta.engine.hasInput })
        #expect(tampering.modifyCalls == saves && alpha.read("keep.txt") == "kept\n" && beta.read("new.txt") == nil)
    }
}

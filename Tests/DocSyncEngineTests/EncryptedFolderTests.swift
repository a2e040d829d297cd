import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Synchronization
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

    // MARK: epochs and on-demand files

    @Test func aRecordOfAnEpochNotHeldYetIsAppliedOnceItsKeysCome() async throws {
        // Alpha seals in epoch 2 (a participant was removed); beta holds epoch 1 only.
        let next = try FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: 2)
        let beta_ = FolderKeySource(keyring)
        let asked = Counter()
        beta_.whenKeysAreMissing { asked.add() }
        let alpha = try device("alpha"), beta = try device("beta", keys: beta_)
        try alpha.write("before.txt", "epoch one\n")
        #expect(await eventually(timeout: .seconds(60)) { beta.read("before.txt") == "epoch one\n" && beta.engine.isSettled })
        let gamma = try device("gamma", keys: FolderKeySource(FolderKeyring([keys, next])))
        try gamma.write("after.txt", "epoch two\n")
        #expect(await eventually(timeout: .seconds(60)) { gamma.engine.isSettled && gamma.read("before.txt") == "epoch one\n" })
        beta.engine.noteRemoteChange()
        #expect(await eventually(timeout: .seconds(60)) { asked.value > 0 }, "beta asks for the keys it lacks")
        #expect(beta.read("after.txt") == nil, "nothing it cannot open is written")
        beta_.update(.available(FolderKeyring([keys, next])))
        #expect(await eventually(timeout: .seconds(60)) { beta.read("after.txt") == "epoch two\n" && beta.engine.isSettled },
                "once the epoch arrives the record refused before is fetched again and applied")
        #expect(beta.names() == ["after.txt", "before.txt"] && beta.status.conflicts == 0)
    }

    @Test func anEncryptedFolderOnDemandKeepsPlaceholdersAndDownloadsSealedContent() async throws {
        let alpha = try device("alpha")
        let beta = try EngineDevice(name: "beta", base: base.url, backend: store, zone: Self.zone, onDemand: true, encryption: FolderKeySource(keyring))
        let content = String(repeating: "a sealed report line\n", count: 15_000)  // 315 KB, several chunks
        try alpha.write("report.txt", content)
        let placeholder = beta.file(".report.txt.docsync")
        #expect(await eventually(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: placeholder.path) && beta.engine.isSettled })
        #expect(beta.read("report.txt") == nil, "listed, not downloaded")
        #expect((try? beta.engine.item(at: RelativePath("report.txt")))??.size == Int64(content.utf8.count), "the real size, opened from the sealed record")
        #expect(await beta.engine.perform(.download([RelativePath("report.txt")])).map(\.done) == [true])
        #expect(beta.read("report.txt") == content, "the sealed chunks are fetched and opened")
        #expect(await beta.engine.perform(.evict([RelativePath("report.txt")])).map(\.done) == [true])
        #expect(beta.read("report.txt") == nil && FileManager.default.fileExists(atPath: placeholder.path))
        try beta.write("from-beta.txt", "written on the on-demand device\n")
        #expect(await eventually(timeout: .seconds(60)) { alpha.read("from-beta.txt") == "written on the on-demand device\n" })
        #expect(alpha.read("report.txt") == content, "evicting deletes nothing elsewhere")
    }
}

/// A count other tasks add to.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

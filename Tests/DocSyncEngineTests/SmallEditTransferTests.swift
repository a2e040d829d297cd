import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Synchronization
import Testing

/// A backend wrapper that counts what crosses it: digests asked about, chunk bytes sent and
/// received, saved records the backend refused, and changed records fetched.
final class TransferCountingBackend: StorageBackend {
    let inner: any StorageBackend
    let digestsAsked = Atomic<Int>(0)
    let bytesUploaded = Atomic<Int>(0)
    let bytesDownloaded = Atomic<Int>(0)
    let recordsRefused = Atomic<Int>(0)
    let recordsFetched = Atomic<Int>(0)

    init(_ inner: any StorageBackend) { self.inner = inner }

    func reset() {
        digestsAsked.store(0, ordering: .relaxed)
        bytesUploaded.store(0, ordering: .relaxed)
        bytesDownloaded.store(0, ordering: .relaxed)
        recordsRefused.store(0, ordering: .relaxed)
        recordsFetched.store(0, ordering: .relaxed)
    }

    func missingChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> Set<SHA256Digest> {
        digestsAsked.add(digests.count, ordering: .relaxed)
        return try await inner.missingChunks(digests)
    }
    func uploadChunk(_ digest: SHA256Digest, bytes: Data) async throws(SyncError) {
        bytesUploaded.add(bytes.count, ordering: .relaxed)
        try await inner.uploadChunk(digest, bytes: bytes)
    }
    func uploadChunks(_ chunks: [ChunkUpload]) async throws(SyncError) {
        bytesUploaded.add(chunks.reduce(0) { $0 + $1.bytes.count }, ordering: .relaxed)
        try await inner.uploadChunks(chunks)
    }
    func downloadChunk(_ digest: SHA256Digest) async throws(SyncError) -> Data {
        let data = try await inner.downloadChunk(digest)
        bytesDownloaded.add(data.count, ordering: .relaxed)
        return data
    }
    func downloadChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> [SHA256Digest: Data] {
        let found = try await inner.downloadChunks(digests)
        bytesDownloaded.add(found.values.reduce(0) { $0 + $1.count }, ordering: .relaxed)
        return found
    }

    func createZone(_ zone: ZoneID) async throws(SyncError) { try await inner.createZone(zone) }
    func deleteZone(_ zone: ZoneID) async throws(SyncError) { try await inner.deleteZone(zone) }
    func listZones() async throws(SyncError) -> [ZoneID] { try await inner.listZones() }
    func moveZone(_ zone: ZoneID, to target: ZoneID) async throws(SyncError) { try await inner.moveZone(zone, to: target) }
    func modifyRecords(_ batch: RecordBatch) async throws(SyncError) -> ModifyResult {
        let result = try await inner.modifyRecords(batch)
        recordsRefused.add(result.failed.count, ordering: .relaxed)
        return result
    }
    func fetchChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int) async throws(SyncError) -> ChangeSet {
        let page = try await inner.fetchChanges(in: zone, since: token, limit: limit)
        recordsFetched.add(page.changed.count, ordering: .relaxed)
        return page
    }
    func fetchRecords(_ ids: [RecordID]) async throws(SyncError) -> [RecordID: Record] { try await inner.fetchRecords(ids) }
    func changeNotifications() -> AsyncStream<ChangeNotification> { inner.changeNotifications() }
    func usage() async throws(SyncError) -> StorageUsage { try await inner.usage() }
    func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord] { try await inner.listDeleted(in: zone, since: since) }
    func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult { try await inner.recoverDeleted(recoveries, in: zone) }
    func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int { try await inner.purgeDeleted(in: zone, ids: ids) }
}

/// Two engines on one embedded backend in a temporary directory, each through its own
/// counting wrapper: `a` (alpha) through `sender`, `b` (beta) through `receiver`.
struct CountedPair {
    let base: TemporaryDirectory
    let sender: TransferCountingBackend
    let receiver: TransferCountingBackend
    let a: EngineDevice
    let b: EngineDevice

    init(_ name: String) throws {
        base = try TemporaryDirectory(name)
        let backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        sender = TransferCountingBackend(backend)
        receiver = TransferCountingBackend(backend)
        a = try EngineDevice(name: "alpha", base: base.url, backend: sender)
        b = try EngineDevice(name: "beta", base: base.url, backend: receiver)
    }
}

/// A small edit of a large file costs about one chunk each way: the sender asks only about
/// chunks its acknowledged version did not have, the receiver takes the rest from its copy.
@Suite("A small edit of a large file")
struct SmallEditTransferTests {
    @Test func oneByteInsertedInAn8MiBFileMovesAFewChunks() async throws {
        let pair = try CountedPair("docsync-small-edit")
        defer { withExtendedLifetime(pair) {} }  // its temporary directory outlives the test
        let (sender, receiver, a, b) = (pair.sender, pair.receiver, pair.a, pair.b)
        var generator = SplitMix64(seed: 20)
        var content = Data(count: 8 << 20)
        content.withUnsafeMutableBytes { raw in for i in raw.indices { raw[i] = UInt8(truncatingIfNeeded: generator.next()) } }
        try content.write(to: a.file("large.bin"))
        a.rescan()
        #expect(await eventually(timeout: .seconds(120)) { FileManager.default.contents(atPath: b.file("large.bin").path) == content })
        #expect(await eventually(timeout: .seconds(30)) { a.engine.isSettled && b.engine.isSettled })
        sender.reset()
        receiver.reset()

        content.insert(0x2a, at: content.count / 2)
        let handle = try FileHandle(forWritingTo: a.file("large.bin"))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: content)
        try handle.close()
        a.rescan()
        #expect(await eventually(timeout: .seconds(120)) { FileManager.default.contents(atPath: b.file("large.bin").path) == content })
        #expect(await eventually(timeout: .seconds(30)) { a.engine.isSettled && b.engine.isSettled })
        let asked = sender.digestsAsked.load(ordering: .relaxed)
        let uploaded = sender.bytesUploaded.load(ordering: .relaxed)
        let downloaded = receiver.bytesDownloaded.load(ordering: .relaxed)
        // The file has about 1,200 chunks; only the new ones and the manifest nodes of the new
        // tree are asked about.
        #expect(asked <= 32, "the sender asked about \(asked) chunks")
        #expect(uploaded <= 64 << 10, "the sender uploaded \(uploaded) bytes")
        #expect(downloaded <= 64 << 10, "the receiver downloaded \(downloaded) bytes")
        // The receiver rebuilds the old version's manifest nodes from its own copy: it needs
        // only what the sender had to upload (the new chunks and nodes), not the whole tree.
        #expect(downloaded <= uploaded, "the receiver downloaded \(downloaded) bytes, the sender uploaded \(uploaded)")
    }

    /// Each save's answer carries the token past the sender's own changes: the sender does
    /// not fetch what it saved back (it fetched every record it sent once, before).
    @Test func aSenderDoesNotFetchItsOwnSavesBack() async throws {
        let pair = try CountedPair("docsync-own-saves")
        defer { withExtendedLifetime(pair) {} }  // its temporary directory outlives the test
        let (sender, receiver, a, b) = (pair.sender, pair.receiver, pair.a, pair.b)
        for i in 0..<4 { try FileManager.default.createDirectory(at: a.file("dir\(i)"), withIntermediateDirectories: true) }
        for i in 0..<40 { try a.write("dir\(i % 4)/file\(i).txt", "content \(i)") }
        #expect(await eventually(timeout: .seconds(60)) { (0..<40).allSatisfy { b.read("dir\($0 % 4)/file\($0).txt") == "content \($0)" } })
        #expect(await eventually(timeout: .seconds(30)) { a.engine.isSettled && b.engine.isSettled })
        #expect(sender.recordsFetched.load(ordering: .relaxed) == 0, "the sender fetched its own saves back")
        #expect(receiver.recordsFetched.load(ordering: .relaxed) >= 44, "the receiver fetched the 40 files and 4 folders")

        // The other way round: the sender of before now only receives the one new record.
        let receivedBefore = receiver.recordsFetched.load(ordering: .relaxed)
        try b.write("from-beta.txt", "hello")
        #expect(await eventually(timeout: .seconds(30)) { a.read("from-beta.txt") == "hello" })
        #expect(await eventually(timeout: .seconds(30)) { a.engine.isSettled && b.engine.isSettled })
        #expect(sender.recordsFetched.load(ordering: .relaxed) == 1)
        #expect(receiver.recordsFetched.load(ordering: .relaxed) == receivedBefore)
    }
}

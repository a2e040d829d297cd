import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §9: what the daemon meets calmly — each bad item is a per-file problem, and
/// everything else still syncs.
@Suite("SPEC §9: bad input")
struct BadInputTests {
    let base: TemporaryDirectory
    let outside: TemporaryDirectory
    let backend: LocalBackend

    init() throws {
        base = try TemporaryDirectory("docsync-badinput")
        outside = try TemporaryDirectory("docsync-outside")
        backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
    }

    @Test func badItemsAreReportedAndTheRestSyncs() async throws {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: backend)
        let b = try EngineDevice(name: "beta", base: base.url, backend: backend)
        let longName = String(repeating: "é", count: 120) + ".txt"  // 244 bytes
        try "newline\n".write(to: a.file("two\nlines.txt"), atomically: false, encoding: .utf8)
        try "long\n".write(to: a.file(longName), atomically: false, encoding: .utf8)
        try "fine\n".write(to: a.file("fine.txt"), atomically: false, encoding: .utf8)
        try "secret\n".write(to: outside.url.appendingPathComponent("secret.txt"), atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: a.file("escape").path, withDestinationPath: outside.path)
        #expect(mkfifo(a.file("pipe").path, 0o644) == 0)
        let bad = Array((a.folder.path + "/caf").utf8) + [0xE9, 0]
        let fd = bad.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        #expect(fd >= 0)
        close(fd)
        try FileManager.default.createDirectory(at: a.file("drafts.nosync"), withIntermediateDirectories: true)
        try "private\n".write(to: a.file("drafts.nosync/idea.txt"), atomically: false, encoding: .utf8)
        try "swap\n".write(to: a.file(".fine.txt.swp"), atomically: false, encoding: .utf8)
        a.rescan()

        // The symlink is applied after the page's new files, one record at a time: wait for it too.
        #expect(await eventually(timeout: .seconds(60)) {
            b.read("fine.txt") == "fine\n" && b.read(longName) == "long\n" && b.read("two\nlines.txt") == "newline\n"
                && (try? FileManager.default.destinationOfSymbolicLink(atPath: b.file("escape").path)) != nil
        })
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: b.file("escape").path) == outside.path, "a symlink is synced as a link")
        #expect(b.names().sorted() == ["escape", "fine.txt", longName, "two\nlines.txt"].sorted(), "ignored and unsyncable items stay behind")
        let problems = Set(a.status.problems.map(\.path))
        #expect(problems.contains("pipe"))
        #expect(problems.contains("caf\\xE9"), "\(problems)")
    }

    @Test func aRemotePathThroughALocalSymlinkNeverLeavesTheFolder() async throws {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: backend)
        let b = try EngineDevice(name: "beta", base: base.url, backend: backend)
        #expect(await eventually(timeout: .seconds(60)) { b.engine.isSettled })
        // On beta, "inbox" is a symlink out of the folder that beta's engine has not seen yet;
        // on alpha, "inbox" is a real directory with a file in it.
        try FileManager.default.createSymbolicLink(atPath: b.file("inbox").path, withDestinationPath: outside.path)
        try FileManager.default.createDirectory(at: a.file("inbox"), withIntermediateDirectories: true)
        try "payload\n".write(to: a.file("inbox/payload.txt"), atomically: false, encoding: .utf8)
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.read("inbox/payload.txt") == "payload\n" && sameTrees(a, b) })
        #expect(!FileManager.default.fileExists(atPath: outside.url.appendingPathComponent("payload.txt").path), "nothing is written outside the folder")
        let aside = b.names().first { $0.hasPrefix("inbox (conflict ") }
        #expect(aside != nil, "beta's symlink is kept beside the directory: \(b.names())")
    }
}

/// A test backend that passes every page through its JSON form with, beside each valid
/// changed record, a crafted copy whose path is `forgedPath`: what a hostile or broken
/// server could send over the wire.
private struct PathForgingBackend: StorageBackend {
    let inner: any StorageBackend
    let forgedPath: String

    func fetchChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int) async throws(SyncError) -> ChangeSet {
        let page = try await inner.fetchChanges(in: zone, since: token, limit: limit)
        do {
            var json = try JSONSerialization.jsonObject(with: WireCoding.encoder.encode(page)) as! [String: Any]
            var changed = json["changed"] as! [[String: Any]]
            for original in changed where original["type"] as? String == "Document" {
                var forged = original
                var id = forged["id"] as! [String: Any]
                id["recordName"] = "forged-" + (id["recordName"] as! String)
                forged["id"] = id
                forged["path"] = forgedPath
                changed.append(forged)
            }
            json["changed"] = changed
            return try WireCoding.decoder.decode(ChangeSet.self, from: JSONSerialization.data(withJSONObject: json))
        } catch {
            throw SyncError(.internalError, "forging failed: \(error)")
        }
    }

    func createZone(_ zone: ZoneID) async throws(SyncError) { try await inner.createZone(zone) }
    func deleteZone(_ zone: ZoneID) async throws(SyncError) { try await inner.deleteZone(zone) }
    func listZones() async throws(SyncError) -> [ZoneID] { try await inner.listZones() }
    func moveZone(_ zone: ZoneID, to target: ZoneID) async throws(SyncError) { try await inner.moveZone(zone, to: target) }
    func modifyRecords(_ batch: RecordBatch) async throws(SyncError) -> ModifyResult { try await inner.modifyRecords(batch) }
    func fetchRecords(_ ids: [RecordID]) async throws(SyncError) -> [RecordID: Record] { try await inner.fetchRecords(ids) }
    func missingChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> Set<SHA256Digest> { try await inner.missingChunks(digests) }
    func uploadChunk(_ digest: SHA256Digest, bytes: Data) async throws(SyncError) { try await inner.uploadChunk(digest, bytes: bytes) }
    func uploadChunks(_ chunks: [ChunkUpload]) async throws(SyncError) { try await inner.uploadChunks(chunks) }
    func downloadChunk(_ digest: SHA256Digest) async throws(SyncError) -> Data { try await inner.downloadChunk(digest) }
    func downloadChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> [SHA256Digest: Data] { try await inner.downloadChunks(digests) }
    func changeNotifications() -> AsyncStream<ChangeNotification> { inner.changeNotifications() }
    func usage() async throws(SyncError) -> StorageUsage { try await inner.usage() }
    func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord] { try await inner.listDeleted(in: zone, since: since) }
    func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult { try await inner.recoverDeleted(recoveries, in: zone) }
    func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int { try await inner.purgeDeleted(in: zone, ids: ids) }
}

@Suite("SPEC §9: a remote record whose path escapes the folder")
struct ForgedPathTests {
    @Test(arguments: ["../escaped.txt", "/tmp/escaped.txt", "a/../../escaped.txt", "nul\u{0}.txt"])
    func isRefusedAndReportedWhileTheRestSyncs(_ forgedPath: String) async throws {
        let base = try TemporaryDirectory("docsync-forged")
        let backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        let a = try EngineDevice(name: "alpha", base: base.url, backend: backend)
        let b = try EngineDevice(name: "beta", base: base.url.appendingPathComponent("inner/deeper"),
                                 backend: PathForgingBackend(inner: backend, forgedPath: forgedPath))
        try a.write("report.txt", "quarterly\n")
        #expect(await eventually(timeout: .seconds(60)) { b.read("report.txt") == "quarterly\n" })
        #expect(await eventually(timeout: .seconds(30)) {
            b.status.problems.contains {
                $0.path == forgedPath.replacingOccurrences(of: "\u{0}", with: "\\u{0}") && $0.message.hasPrefix("refused a change from the server")
            }
        })
        #expect(b.names() == ["report.txt"])
        // Nothing appeared beside or above beta's folder, nor at the absolute path.
        let above = b.folder.deletingLastPathComponent()
        #expect(!FileManager.default.fileExists(atPath: above.appendingPathComponent("escaped.txt").path))
        #expect(!FileManager.default.fileExists(atPath: above.deletingLastPathComponent().appendingPathComponent("escaped.txt").path))
        if forgedPath.hasPrefix("/") { #expect(!FileManager.default.fileExists(atPath: forgedPath)) }
        #expect(a.status.problems.isEmpty, "the sender is not affected")
    }
}

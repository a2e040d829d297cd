import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Per-user quotas on a real docsync-server process: what a user keeps counts (live,
/// Recently Deleted, replaced versions); an upload or save beyond is 507 `quotaExceeded`
/// carrying the quota; a purge, a deletion past the retention or a larger quota frees it.
@Suite struct ServerQuotaTests {
    let zone = ZoneID("Documents")

    /// `count` bytes of seeded random content, as one chunk (under the chunker's minimum
    /// there is no cut) of at most 32 KiB, or several.
    static func content(_ seed: UInt64, _ count: Int) -> Data {
        var random = SeededRandom(seed: seed)
        return Data(random.bytes(count))
    }

    @Test func aFullAccountIsRefusedUntilAPurgeFreesItAndALargerQuotaToo() async throws {
        let server = try await TestServer(["--gc-grace", "0", "--gc-interval", "0"])
        let token = try await server.process.addUser("alice")
        #expect(try await ServerProcess.userCommand(["quota", "alice", "100KB"], dataDirectory: server.process.dataDirectory) == "alice: 0 B used of 100 kB")
        let alice = try HTTPBackend(url: server.url, token: token)
        try await alice.createZone(zone)
        let first = try await alice.save(try await TestRecords.document(zone, "first.bin", content: Self.content(1, 60_000), on: alice))
        let used = try await alice.usage().chunkBytes
        #expect(used == 60_000)

        // One chunk by itself, and a batch: both refused whole, with the account's figures.
        let second = Self.content(2, 50_000), third = Self.content(3, 50_000)
        let single = await expectSyncError(.quotaExceeded) { try await alice.uploadChunk(SHA256Digest(hashing: second), bytes: second) }
        #expect(single?.quota == AccountQuota(usedBytes: used, quotaBytes: 100_000))
        #expect(single?.message.hasPrefix("account storage full (60 kB of 100 kB used") == true, "\(String(describing: single))")
        let batch = [second, third].map { ChunkUpload(digest: SHA256Digest(hashing: $0), bytes: $0) }
        let refused = await expectSyncError(.quotaExceeded) { try await alice.uploadChunks(batch) }
        #expect(refused?.quota?.quotaBytes == 100_000)
        #expect(try await alice.missingChunks(batch.map(\.digest)).count == 2, "nothing of a refused batch is stored")
        let raw = try await RawHTTP.send(.PUT, server.url, WireRoute.chunk(batch[0].digest), token: token, body: second, contentType: WireRoute.octetStream)
        #expect(raw.status == 507 && raw.error?.quota != nil)
        // Re-storing what is stored adds nothing, and is not refused.
        try await alice.uploadChunks(try await chunksOf(first, on: alice))

        // Deleted, it still counts: it is in Recently Deleted.
        _ = try await alice.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: first.id)]))
        await expectSyncError(.quotaExceeded) { try await alice.uploadChunks(batch) }
        // Purged, it is collected at once and the space comes back.
        #expect(try await alice.purgeDeleted(in: zone, ids: nil) == 1)
        let freed = try await eventually(timeout: .seconds(20), pollEvery: .milliseconds(50)) { try await alice.usage().chunkBytes == 0 }
        #expect(freed, "a purge frees the space promptly")
        try await alice.uploadChunks(batch)  // 100 kB of 100 kB: it fits exactly

        // A larger quota frees room at once; removing it lifts the limit.
        let more = Self.content(4, 50_000)
        await expectSyncError(.quotaExceeded) { try await alice.uploadChunk(SHA256Digest(hashing: more), bytes: more) }
        #expect(try await ServerProcess.userCommand(["quota", "alice", "1MB"], dataDirectory: server.process.dataDirectory) == "alice: 100 kB used of 1 MB")
        try await alice.uploadChunk(SHA256Digest(hashing: more), bytes: more)
        #expect(try await ServerProcess.userCommand(["quota", "alice", "none"], dataDirectory: server.process.dataDirectory) == "alice: 150 kB used of no quota")
        await alice.shutdown()
    }

    @Test func savesAreRefusedOverAQuotaLoweredBelowUsageButDeletionsAreNot() async throws {
        let server = try await TestServer(["--gc-interval", "0"])
        let token = try await server.process.addUser("alice")
        let alice = try HTTPBackend(url: server.url, token: token)
        try await alice.createZone(zone)
        let document = try await alice.save(try await TestRecords.document(zone, "doc.bin", content: Self.content(5, 20_000), on: alice))
        _ = try await ServerProcess.userCommand(["quota", "alice", "10KB"], dataDirectory: server.process.dataDirectory)
        let error = await expectSyncError(.quotaExceeded) { try await alice.save(TestRecords.folder(zone, "new folder")) }
        #expect(error?.quota == AccountQuota(usedBytes: 20_000, quotaBytes: 10_000))
        let deletion = try await alice.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: document.id)]))
        #expect(deletion.deleted == [document.id], "deleting is never refused")
        let recovered = try await alice.recoverDeleted([DeletedRecordRecovery(id: document.id, device: "d")], in: zone)
        #expect(recovered.saved[document.id] != nil, "recovering adds nothing: not refused")
        await alice.shutdown()
    }

    @Test func aDeletionPastTheRetentionFreesTheSpaceOnTheServersSchedule() async throws {
        // A grace of ten seconds covers the upload before the save (even on a loaded machine:
        // two seconds did not, once), with a collection every second.
        let server = try await TestServer(["--deleted-retention", "1s", "--gc-interval", "1s", "--gc-grace", "10s"])
        let token = try await server.process.addUser("alice")
        _ = try await ServerProcess.userCommand(["quota", "alice", "50KB"], dataDirectory: server.process.dataDirectory)
        let alice = try HTTPBackend(url: server.url, token: token)
        try await alice.createZone(zone)
        let document = try await alice.save(try await TestRecords.document(zone, "a.bin", content: Self.content(6, 40_000), on: alice))
        let next = Self.content(7, 40_000)
        await expectSyncError(.quotaExceeded) { try await alice.uploadChunk(SHA256Digest(hashing: next), bytes: next) }
        _ = try await alice.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: document.id)]))
        let freed = try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await alice.usage().chunkBytes == 0 }
        #expect(freed, "the server's collection (every second) took the expired deletion's chunks once past the grace")
        try await alice.uploadChunk(SHA256Digest(hashing: next), bytes: next)
        await alice.shutdown()
    }

    @Test func quotaSizesAreReadLikeConfigurationSizesAndBadOnesRefused() async throws {
        let directory = try TemporaryDirectory()
        _ = try await ServerProcess.userCommand(["add", "alice"], dataDirectory: directory.url)
        for (size, shown) in [("1.5GB", "1.5 GB"), ("512MiB", "536.9 MB"), ("2048", "2 kB")] {
            #expect(try await ServerProcess.userCommand(["quota", "alice", size], dataDirectory: directory.url) == "alice: 0 B used of \(shown)")
        }
        #expect(try await ServerProcess.userCommand(["list"], dataDirectory: directory.url) == "alice\t1 token\tquota 2 kB")
        let bad = try await runProcess(builtProduct("docsync-server"), ["user", "quota", "alice", "lots", "--data", directory.path])
        #expect(bad.status == 2 && bad.errors.contains("not a size"))
        let nobody = try await runProcess(builtProduct("docsync-server"), ["user", "quota", "carol", "1GB", "--data", directory.path])
        #expect(nobody.status == 1 && nobody.errors.contains("no user"))
    }

    /// The chunks of a stored document, as uploads.
    func chunksOf(_ record: Record, on backend: any StorageBackend) async throws -> [ChunkUpload] {
        let manifest = try await backend.loadManifest(try #require(record.asset))
        let loaded = try await backend.downloadChunks(manifest.chunks.map(\.digest))
        return loaded.map { ChunkUpload(digest: $0.key, bytes: $0.value) }
    }
}

import DocSyncCore
import DocSyncServer
import DocSyncStorage
import Foundation
import Testing

/// The contract every docsync-server store keeps (`ServerStore`: the embedded store of one
/// machine and the scale-out store): accounts and tokens, quotas (across instances), chunk
/// batches committed and aborted, budgeted reads, each user's storage its own, per-user
/// collection, and shares: their rules, who may do what, one entry changed at a time
/// (`ServerStoreConformance+Shares`). A store's test file is one line:
///
///     @Test(arguments: ServerStoreCase.allCases)
///     func conforms(_ check: ServerStoreCase) async throws { try await check.run(with: MyFactory()) }
public enum ServerStoreCase: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case tokensAuthenticateTheirAccountOnEveryInstance
    case badOrDuplicateNamesAreRefused
    case quotasApplyAtOnceOnEveryInstance
    case aQuotaHoldsAcrossInstances
    case aChunkBatchIsStoredWholeWhenCommitted
    case anAbortedOrRefusedBatchLeavesNothing
    case aBatchRefusesABadChunk
    case budgetedReadsReturnAPrefix
    case eachUsersStorageIsItsOwn
    case collectingOneUserLeavesTheOthers
    case sharesChangeByTheirRulesOnEveryInstance
    case accessFollowsTheShareOnEveryInstance
    case aShareEntryChangesOnlyFromWhatWasRead
    case aKeyValueStoreIsNeverShared

    public var testDescription: String { rawValue }

    /// Runs the case on a fresh fixture of `factory`'s, closing it afterwards.
    public func run(with factory: some ServerStoreFixtureFactory) async throws {
        let settings = StoreSettings(collectionInterval: 0, collectionGrace: self == .collectingOneUserLeavesTheOthers ? 0 : 3600)
        let fixture = try await factory.makeFixture(settings: settings)
        try await closing(fixture.close) { try await run(fixture) }
    }

    private func run(_ fixture: ServerStoreFixture) async throws {
        let store = fixture.store
        switch self {
        case .sharesChangeByTheirRulesOnEveryInstance, .accessFollowsTheShareOnEveryInstance, .aShareEntryChangesOnlyFromWhatWasRead,
             .aKeyValueStoreIsNeverShared:
            try await runShares(fixture)

        case .tokensAuthenticateTheirAccountOnEveryInstance:
            let first = try await store.addUser("alice", device: nil)
            let second = try await store.addToken(for: "alice", device: "alice's phone")
            let bob = try await store.addUser("bob", device: "desk")
            #expect(Set([first, second, bob]).count == 3, "every token is new")
            let other = try await fixture.openAnotherInstance()
            for instance in [store, other] {
                #expect(try await instance.authenticate(first) == AccountIdentity(user: "alice", device: nil))
                #expect(try await instance.authenticate(second) == AccountIdentity(user: "alice", device: "alice's phone"))
                #expect(try await instance.authenticate(bob) == AccountIdentity(user: "bob", device: "desk"))
                #expect(try await instance.authenticate("nope") == nil)
                #expect(try await instance.authenticate(String(first.dropLast())) == nil, "a prefix of a token is not a token")
                #expect(try await instance.users().map(\.name) == ["alice", "bob"])
                #expect(try await instance.users().map(\.tokens) == [2, 1])
            }

        case .badOrDuplicateNamesAreRefused:
            _ = try await store.addUser("alice", device: nil)
            for name in ["alice", "", "../x", "Alice", ".hidden", "-x", "a/b", "a\u{0}b", "caf\u{E9}", String(repeating: "a", count: 65)] {
                await expectSyncError(.invalidArguments) { _ = try await store.addUser(name, device: nil) }
            }
            await expectSyncError(.invalidArguments) { _ = try await store.addToken(for: "nobody", device: nil) }
            await expectSyncError(.invalidArguments) { _ = try await store.addToken(for: "alice", device: "two\nlines") }
            await expectSyncError(.invalidArguments) { _ = try await store.addToken(for: "alice", device: String(repeating: "d", count: 256)) }
            #expect(try await store.users().map(\.name) == ["alice"], "nothing refused was created")
            #expect(try await store.users().map(\.tokens) == [1])

        case .quotasApplyAtOnceOnEveryInstance:
            _ = try await store.addUser("alice", device: nil)
            let other = try await fixture.openAnotherInstance()
            #expect(try await store.quota(of: "alice") == nil)
            try await store.setQuota(10_000_000_000, for: "alice")
            #expect(try await other.quota(of: "alice") == 10_000_000_000, "another instance sees it at once")
            #expect(try await other.users().map(\.quotaBytes) == [10_000_000_000])
            try await other.setQuota(nil, for: "alice")
            #expect(try await store.quota(of: "alice") == nil)
            #expect(try await store.quota(of: "nobody") == nil)
            await expectSyncError(.invalidArguments) { try await store.setQuota(1, for: "nobody") }
            await expectSyncError(.invalidArguments) { try await store.setQuota(-1, for: "alice") }

        case .aQuotaHoldsAcrossInstances:
            _ = try await store.addUser("alice", device: nil)
            let other = try await fixture.openAnotherInstance()
            let limit: Int64 = 10_000
            let backends = [try await store.backend(for: "alice"), try await other.backend(for: "alice")]
            // Twelve uploads of 1,500 new bytes each, six through each instance at once: at
            // most six fit the quota, whatever the interleaving.
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0 ..< 12 {
                    let backend = backends[index % 2], chunk = Self.chunk("upload \(index)", length: 1500)
                    group.addTask {
                        do {
                            try await backend.uploadChunks([chunk], byteLimit: limit)
                            return true
                        } catch let error as SyncError {
                            #expect(error.code == .quotaExceeded)
                            #expect(error.quota?.quotaBytes == limit)
                            return false
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            let stored = try await store.storedBytes(of: "alice")
            #expect(stored <= limit, "the quota held: \(stored) bytes stored")
            #expect(stored == Int64(outcomes.filter { $0 }.count) * 1500, "what was accepted is what is stored")
            #expect(outcomes.filter { $0 }.count == 6)
            #expect(try await other.storedBytes(of: "alice") == stored)

        case .aChunkBatchIsStoredWholeWhenCommitted:
            _ = try await store.addUser("alice", device: nil)
            let backend = try await store.backend(for: "alice")
            #expect(try await store.storedBytes(of: "alice") == 0)
            let chunks = [Self.chunk("one", length: 700), Self.chunk("two", length: 300)]
            let batch = backend.makeChunkBatch()
            try await batch.add([chunks[0]])
            try await batch.add([chunks[1]])
            #expect(try await backend.missingChunks(chunks.map(\.digest)).count == 2, "nothing is stored before the commit")
            try await batch.commit(byteLimit: nil)
            #expect(try await backend.missingChunks(chunks.map(\.digest)).isEmpty)
            #expect(try await store.storedBytes(of: "alice") == 1000)
            let other = try await fixture.openAnotherInstance()
            #expect(try await other.backend(for: "alice").downloadChunks(chunks.map(\.digest)) == [chunks[0].digest: chunks[0].bytes, chunks[1].digest: chunks[1].bytes])

        case .anAbortedOrRefusedBatchLeavesNothing:
            _ = try await store.addUser("alice", device: nil)
            let backend = try await store.backend(for: "alice")
            let chunk = Self.chunk("aborted", length: 800)
            let aborted = backend.makeChunkBatch()
            try await aborted.add([chunk])
            await aborted.abort()
            #expect(try await backend.missingChunks([chunk.digest]) == [chunk.digest])
            let refused = backend.makeChunkBatch()
            try await refused.add([chunk, Self.chunk("more", length: 800)])
            let error = await expectSyncError(.quotaExceeded) { try await refused.commit(byteLimit: 1000) }
            #expect(error?.quota == AccountQuota(usedBytes: 0, quotaBytes: 1000))
            await refused.abort()
            #expect(try await backend.missingChunks([chunk.digest]) == [chunk.digest], "a batch over the quota is refused whole")
            #expect(try await store.storedBytes(of: "alice") == 0)

        case .aBatchRefusesABadChunk:
            _ = try await store.addUser("alice", device: nil)
            let backend = try await store.backend(for: "alice")
            let good = Self.chunk("good", length: 100)
            let bad = ChunkUpload(digest: SHA256Digest(hashing: Data("other".utf8)), bytes: Data("evil".utf8))
            let batch = backend.makeChunkBatch()
            try await batch.add([good])
            await expectSyncError(.chunkDigestMismatch) { try await batch.add([bad]) }
            await batch.abort()
            #expect(try await backend.missingChunks([good.digest, bad.digest]).count == 2)
            let tooLarge = ChunkUpload(digest: SHA256Digest(hashing: Data(count: StorageLimits.maximumChunkSize + 1)),
                                       bytes: Data(count: StorageLimits.maximumChunkSize + 1))
            let large = backend.makeChunkBatch()
            await expectSyncError(.limitExceeded) { try await large.add([tooLarge]) }
            await large.abort()

        case .budgetedReadsReturnAPrefix:
            _ = try await store.addUser("alice", device: nil)
            let backend = try await store.backend(for: "alice")
            let chunks = [Self.chunk("a", length: 100), Self.chunk("b", length: 200), Self.chunk("c", length: 300)]
            try await backend.uploadChunks(chunks, byteLimit: nil)
            let digests = chunks.map(\.digest)
            let cost: @Sendable (Int) -> Int = { $0 }
            #expect(try await backend.downloadChunks(prefixOf: digests, budget: 299, cost: cost).map(\.digest) == [digests[0]])
            #expect(try await backend.downloadChunks(prefixOf: digests, budget: 300, cost: cost).map(\.digest) == Array(digests[0 ..< 2]))
            #expect(try await backend.downloadChunks(prefixOf: digests, budget: 0, cost: cost).map(\.digest) == [digests[0]], "at least one")
            let repeated = try await backend.downloadChunks(prefixOf: [digests[2], digests[2], digests[0]], budget: 10_000, cost: cost)
            #expect(repeated.map(\.digest) == [digests[2], digests[2], digests[0]], "a repeated digest is repeated, in order")
            #expect(repeated.map(\.bytes) == [chunks[2].bytes, chunks[2].bytes, chunks[0].bytes])
            let absent = SHA256Digest(hashing: Data("absent".utf8))
            let missing = await expectSyncError(.chunkNotFound) { _ = try await backend.downloadChunks(prefixOf: [digests[0], absent], budget: 10_000, cost: cost) }
            #expect(missing?.digest == absent)

        case .eachUsersStorageIsItsOwn:
            _ = try await store.addUser("alice", device: nil)
            _ = try await store.addUser("bob", device: nil)
            let alice = try await store.backend(for: "alice"), bob = try await store.backend(for: "bob")
            let zone = ZoneID("Documents")
            try await alice.createZone(zone)
            let chunk = Self.chunk("alice's", length: 500)
            try await alice.uploadChunks([chunk], byteLimit: nil)
            _ = try await alice.save(TestRecords.folder(zone, "private"))
            #expect(try await bob.listZones().isEmpty)
            await expectSyncError(.zoneNotFound) { _ = try await bob.fetchChanges(in: zone, since: nil, limit: 10) }
            #expect(try await bob.missingChunks([chunk.digest]) == [chunk.digest], "another user's chunk is not stored for bob")
            await expectSyncError(.chunkNotFound) { _ = try await bob.downloadChunk(chunk.digest) }
            #expect(try await store.storedBytes(of: "bob") == 0)
            #expect(try await store.storedBytes(of: "alice") == 500)

        case .collectingOneUserLeavesTheOthers:
            _ = try await store.addUser("alice", device: nil)
            _ = try await store.addUser("bob", device: nil)
            _ = try await store.addUser("carol", device: nil)
            let garbage = [Self.chunk("alice's garbage", length: 400), Self.chunk("bob's garbage", length: 400)]
            let alice = try await store.backend(for: "alice"), bob = try await store.backend(for: "bob")
            try await alice.uploadChunks([garbage[0]], byteLimit: nil)
            try await bob.uploadChunks([garbage[1]], byteLimit: nil)
            await expectSyncError(.invalidArguments) { _ = try await store.collect(user: "nobody", waiting: 0) }
            // The grace period is 0: a chunk older than the store's clock's resolution is garbage.
            let aliceCollected = try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(50)) {
                let reports = try await store.collect(user: "alice", waiting: 30)
                #expect(reports.map(\.user) == ["alice"])
                return try await alice.missingChunks([garbage[0].digest]) == [garbage[0].digest]
            }
            #expect(aliceCollected, "alice's unreferenced chunk is collected")
            #expect(try await bob.missingChunks([garbage[1].digest]).isEmpty, "bob's storage was not collected")
            #expect(try await store.storedBytes(of: "bob") == 400)
            #expect(try await store.collect(user: "carol", waiting: 30).map(\.user) == ["carol"], "a user with nothing stored is named too")
            let everyoneCollected = try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(50)) {
                _ = try await store.collect(user: nil, waiting: 30)
                return try await bob.missingChunks([garbage[1].digest]) == [garbage[1].digest]
            }
            #expect(everyoneCollected, "every user's garbage is collected")
            #expect(try await store.storedBytes(of: "bob") == 0)
        }
    }

    /// A chunk of `length` bytes made from `seed`.
    static func chunk(_ seed: String, length: Int) -> ChunkUpload {
        var bytes = Data(seed.utf8)
        while bytes.count < length { bytes += Data(SHA256Digest(hashing: bytes).hex.utf8) }
        bytes = bytes.prefix(length)
        return ChunkUpload(digest: SHA256Digest(hashing: bytes), bytes: bytes)
    }
}

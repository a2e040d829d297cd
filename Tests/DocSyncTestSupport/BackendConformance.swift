import DocSyncCore
import DocSyncPlatform
import DocSyncStorage
import Foundation
import Testing

/// The behaviours every `StorageBackend` must have, one case each, each on a fresh backend.
/// A backend's whole conformance test is one parameterized line:
///
///     @Test(arguments: ConformanceCase.allCases)
///     func conforms(_ check: ConformanceCase) async throws { try await check.run(with: MyFactory()) }
public enum ConformanceCase: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case recordRoundTrip
    case staleChangeTagIsServerRecordChanged
    case mixedBatchHasPerItemResults
    case atomicBatchIsAllOrNothing
    case moreThan400ItemsIsLimitExceeded
    case changesComeInPagesWithTombstones
    case aCurrentSenderIsGivenTheTokenPastItsBatch
    case changeTokenSurvivesReopen
    case compactedTombstonesExpireOlderTokens
    case unknownZoneIsZoneNotFound
    case zoneLifecycle
    case sameChunkStoredTwiceIsOneChunk
    case chunkNotMatchingItsDigestIsRejected
    case missingAndCorruptChunksAreDifferentErrors
    case documentWithoutItsChunksIsRefused
    case invalidRecordsAreRefused
    case largeAssetRoundTripsThroughManifestTree
    case twoClientsWritingAtOnceLoseNothing
    case notificationsReachOtherClients
    case deletionIsKeptInRecentlyDeletedWithItsDeviceAndChunks
    case recentlyDeletedIsNewestFirstAndFiltersBySince
    case recoveredRecordsReachEveryDevice
    case recoverRefusesWhatIsNotInRecentlyDeleted
    case purgeEmptiesSomeOrAllOfRecentlyDeleted
    case replacedVersionsKeepTheirChunks
    case keptVersionsExpireAfterTheRetention
    case pathsDifferingOnlyInNormalizationAreTwo
    case valuesAreSavedUnconditionallyAndTheLastToArriveWins
    case valueDeletionsSkipRecentlyDeleted
    case valuesLiveOnlyInKeyValueZonesAndOnlyValuesThere
    case keyValueLimitsRefuseAWriteWithQuotaExceeded
    case sealedRecordsAreKeptAsSent
    case plaintextIsRefusedWhereEncryptionIsOn
    case sealedChunkRoundTripsByteForByte
    case sealedChunkWithAWrongBodyDigestIsRefused
    case sealedChunkDamagedAtRestIsCorrupt
    case sealedChunksAreKeptWhileReferencedAndSweptAfter
    case aMovedZoneIsARedirect
    case aMovedZonesOwnChunksAreGoneAtOnce

    public var testDescription: String { rawValue }

    public func run(with factory: some BackendFixtureFactory) async throws {
        let fixture = try await factory.makeFixture(settings: settings)
        try await closing(fixture.close) { try await run(fixture) }
    }

    private func run(_ fixture: BackendFixture) async throws {
        let zone = ZoneID("Documents")
        let backend = fixture.backend
        switch self {
        case .recordRoundTrip: try await Conformance.recordRoundTrip(backend, zone)
        case .staleChangeTagIsServerRecordChanged: try await Conformance.staleChangeTag(backend, zone)
        case .mixedBatchHasPerItemResults: try await Conformance.mixedBatch(backend, zone)
        case .atomicBatchIsAllOrNothing: try await Conformance.atomicBatch(backend, zone)
        case .moreThan400ItemsIsLimitExceeded: try await Conformance.limitExceeded(backend, zone)
        case .changesComeInPagesWithTombstones: try await Conformance.pagedChanges(backend, zone)
        case .aCurrentSenderIsGivenTheTokenPastItsBatch: try await Conformance.tokenPastOwnBatch(fixture, zone)
        case .changeTokenSurvivesReopen: try await Conformance.tokenSurvivesReopen(fixture, zone)
        case .compactedTombstonesExpireOlderTokens: try await Conformance.compaction(fixture, zone)
        case .unknownZoneIsZoneNotFound: try await Conformance.unknownZone(backend, zone)
        case .zoneLifecycle: try await Conformance.zoneLifecycle(backend, zone)
        case .sameChunkStoredTwiceIsOneChunk: try await Conformance.chunkStoredTwice(backend)
        case .chunkNotMatchingItsDigestIsRejected: try await Conformance.chunkDigestMismatch(backend)
        case .missingAndCorruptChunksAreDifferentErrors: try await Conformance.missingVersusCorrupt(fixture)
        case .documentWithoutItsChunksIsRefused: try await Conformance.documentWithoutChunks(backend, zone)
        case .invalidRecordsAreRefused: try await Conformance.invalidRecords(backend, zone)
        case .largeAssetRoundTripsThroughManifestTree: try await Conformance.largeAsset(backend)
        case .twoClientsWritingAtOnceLoseNothing: try await Conformance.concurrentClients(fixture, zone)
        case .notificationsReachOtherClients: try await Conformance.notifications(fixture, zone)
        case .deletionIsKeptInRecentlyDeletedWithItsDeviceAndChunks: try await Conformance.deletionIsKept(fixture, zone)
        case .recentlyDeletedIsNewestFirstAndFiltersBySince: try await Conformance.newestFirstAndSince(backend, zone)
        case .recoveredRecordsReachEveryDevice: try await Conformance.recoverReachesEveryDevice(fixture, zone)
        case .recoverRefusesWhatIsNotInRecentlyDeleted: try await Conformance.recoverRefusals(backend, zone)
        case .purgeEmptiesSomeOrAllOfRecentlyDeleted: try await Conformance.purgeSomeOrAll(fixture, zone)
        case .replacedVersionsKeepTheirChunks: try await Conformance.replacedVersionsKeepTheirChunks(fixture, zone)
        case .keptVersionsExpireAfterTheRetention: try await Conformance.keptVersionsExpire(fixture, zone)
        case .pathsDifferingOnlyInNormalizationAreTwo: try await Conformance.pathsAreBytes(backend, zone)
        case .valuesAreSavedUnconditionallyAndTheLastToArriveWins: try await KeyValueConformance.lastWriteWins(fixture)
        case .valueDeletionsSkipRecentlyDeleted: try await KeyValueConformance.deletionsSkipRecentlyDeleted(backend)
        case .valuesLiveOnlyInKeyValueZonesAndOnlyValuesThere: try await KeyValueConformance.valuesOnlyInKeyValueZones(backend, zone)
        case .keyValueLimitsRefuseAWriteWithQuotaExceeded: try await KeyValueConformance.limitsRefuseWithQuotaExceeded(backend)
        case .sealedRecordsAreKeptAsSent: try await SealedRecordConformance.keepsSealedRecords(backend)
        case .plaintextIsRefusedWhereEncryptionIsOn: try await EncryptedAccountConformance.refusesPlaintext(backend)
        case .sealedChunkRoundTripsByteForByte: try await SealedChunkConformance.roundTrip(fixture)
        case .sealedChunkWithAWrongBodyDigestIsRefused: try await SealedChunkConformance.wrongBodyDigest(backend)
        case .sealedChunkDamagedAtRestIsCorrupt: try await SealedChunkConformance.damagedAtRest(fixture)
        case .sealedChunksAreKeptWhileReferencedAndSweptAfter: try await SealedChunkConformance.keptWhileReferenced(fixture)
        case .aMovedZoneIsARedirect: try await ZoneMoveConformance.redirect(fixture)
        case .aMovedZonesOwnChunksAreGoneAtOnce: try await ZoneMoveConformance.ownChunksGoAtOnce(fixture)
        }
    }

    /// The storage settings the case runs with: the cases that collect garbage take any
    /// unreferenced chunk at once, the expiry case keeps versions for a second; the others
    /// run with the defaults.
    var settings: StoreSettings {
        switch self {
        case .keptVersionsExpireAfterTheRetention: Conformance.expiringAfterASecond
        case .deletionIsKeptInRecentlyDeletedWithItsDeviceAndChunks, .purgeEmptiesSomeOrAllOfRecentlyDeleted,
             .replacedVersionsKeepTheirChunks, .sealedChunksAreKeptWhileReferencedAndSweptAfter: Conformance.collectingAtOnce
        default: StoreSettings(collectionInterval: 0)
        }
    }
}

/// Expects `body` to throw a `SyncError` with `code`; returns it for further checks.
@discardableResult
public func expectSyncError<T>(
    _ code: SyncError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async -> SyncError? {
    do {
        _ = try await body()
        Issue.record("expected \(code.rawValue), but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as SyncError {
        #expect(error.code == code, "expected \(code.rawValue), got \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected SyncError.\(code.rawValue), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

enum Conformance {
    static func recordRoundTrip(_ backend: any StorageBackend, _ zone: ZoneID) async throws {
        try await backend.createZone(zone)
        let document = try await TestRecords.document(zone, "notes/a.txt", content: Data("hello, world\n".utf8), on: backend)
        let folder = TestRecords.folder(zone, "notes")
        let link = TestRecords.symlink(zone, "notes/link", target: "a.txt")
        let result = try await backend.modifyRecords(RecordBatch(zone: zone, saves: [document, folder, link]))
        #expect(result.failed.isEmpty)
        #expect(Set(result.saved.keys) == [document.id, folder.id, link.id])
        for original in [document, folder, link] {
            let saved = try #require(result.saved[original.id])
            #expect(saved.changeTag != nil)
            #expect(TestRecords.stripped(saved) == original)
        }
        let fetched = try await backend.fetchRecords([document.id, folder.id, link.id, RecordID(zone: zone, recordName: "absent")])
        #expect(fetched.count == 3)
        #expect(fetched[document.id] == result.saved[document.id])
        let changes = try await backend.fetchAllChanges(in: zone, since: nil)
        #expect(changes.changed == result.saved)
        #expect(changes.deleted.isEmpty)
        let content = try await backend.loadAsset(try #require(fetched[document.id]?.asset))
        #expect(content == Data("hello, world\n".utf8))
    }

    static func staleChangeTag(_ backend: any StorageBackend, _ zone: ZoneID) async throws {
        try await backend.createZone(zone)
        let v1 = try await backend.save(TestRecords.folder(zone, "a"))
        var edit = v1
        edit.path = RelativePath("b")
        let v2 = try await backend.save(edit)
        #expect(v2.changeTag != v1.changeTag)
        var stale = v1
        stale.path = RelativePath("c")
        let error = await expectSyncError(.serverRecordChanged) { try await backend.save(stale) }
        #expect(error?.serverRecord == v2)
        // Creating a record that exists is a stale save too.
        let again = await expectSyncError(.serverRecordChanged) { try await backend.save(TestRecords.stripped(v1)) }
        #expect(again?.serverRecord == v2)
        // A deletion based on a stale tag fails the same way and deletes nothing.
        let deletion = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: v1.id, baseTag: v1.changeTag)]))
        #expect(deletion.failed[v1.id]?.code == .serverRecordChanged)
        #expect(try await backend.fetchRecords([v1.id])[v1.id] == v2)
        // Based on the current tag, both work.
        #expect(try await backend.save({ var r = v2; r.path = RelativePath("d"); return r }()).path == RelativePath("d"))
    }

    static func mixedBatch(_ backend: any StorageBackend, _ zone: ZoneID) async throws {
        try await backend.createZone(zone)
        let existing = try await backend.save(TestRecords.folder(zone, "existing"))
        let doomed = try await backend.save(TestRecords.folder(zone, "doomed"))
        var moved = existing
        moved.path = RelativePath("moved")
        _ = try await backend.save(moved)
        var stale = existing
        stale.path = RelativePath("stale")
        let fresh = TestRecords.folder(zone, "fresh")
        let batch = RecordBatch(zone: zone, saves: [fresh, stale], deletions: [RecordDeletion(id: doomed.id, baseTag: doomed.changeTag)])
        let result = try await backend.modifyRecords(batch)
        #expect(Set(result.saved.keys) == [fresh.id])
        #expect(result.deleted == [doomed.id])
        #expect(result.failed.keys.sorted() == [existing.id])
        #expect(result.failed[existing.id]?.code == .serverRecordChanged)
        #expect(result.partialFailure?.itemErrors?.keys.sorted() == [existing.id])
        let now = try await backend.fetchRecords([fresh.id, doomed.id, existing.id])
        #expect(now[fresh.id] != nil && now[doomed.id] == nil && now[existing.id]?.path == RelativePath("moved"))
    }

    static func atomicBatch(_ backend: any StorageBackend, _ zone: ZoneID) async throws {
        try await backend.createZone(zone)
        let existing = try await backend.save(TestRecords.folder(zone, "existing"))
        let other = try await backend.save(TestRecords.folder(zone, "other"))
        _ = try await backend.save({ var r = existing; r.path = RelativePath("moved"); return r }())
        let before = try await backend.fetchAllChanges(in: zone, since: nil)
        let fresh = TestRecords.folder(zone, "fresh")
        let stale = { var r = existing; r.path = RelativePath("stale"); return r }()
        let batch = RecordBatch(zone: zone, saves: [fresh, stale], deletions: [RecordDeletion(id: other.id)], atomic: true)
        let result = try await backend.modifyRecords(batch)
        #expect(result.saved.isEmpty && result.deleted.isEmpty)
        #expect(result.failed[existing.id]?.code == .serverRecordChanged)
        #expect(result.failed[fresh.id]?.code == .batchRequestFailed)
        #expect(result.failed[other.id]?.code == .batchRequestFailed)
        let after = try await backend.fetchAllChanges(in: zone, since: before.token)
        #expect(after.changed.isEmpty && after.deleted.isEmpty, "a failed atomic batch left changes behind")
        // The same batch without the stale item applies whole.
        let good = try await backend.modifyRecords(RecordBatch(zone: zone, saves: [fresh], deletions: [RecordDeletion(id: other.id)], atomic: true))
        #expect(good.failed.isEmpty && good.saved.count == 1 && good.deleted == [other.id])
    }

    static func limitExceeded(_ backend: any StorageBackend, _ zone: ZoneID) async throws {
        try await backend.createZone(zone)
        let records = (0...RecordBatch.maximumItems).map { TestRecords.folder(zone, "f\($0)") }
        await expectSyncError(.limitExceeded) { try await backend.modifyRecords(RecordBatch(zone: zone, saves: records)) }
        #expect(try await backend.fetchAllChanges(in: zone, since: nil).changed.isEmpty)
        let pieces = RecordBatch(zone: zone, saves: records).split()
        #expect(pieces.map(\.itemCount) == [RecordBatch.maximumItems, 1])
        for piece in pieces { #expect(try await backend.modifyRecords(piece).failed.isEmpty) }
        #expect(try await backend.fetchAllChanges(in: zone, since: nil, pageSize: 1000).changed.count == records.count)
    }

    static func pagedChanges(_ backend: any StorageBackend, _ zone: ZoneID) async throws {
        try await backend.createZone(zone)
        let records = (0..<25).map { TestRecords.folder(zone, "dir\($0)") }
        let saved = try await backend.modifyRecords(RecordBatch(zone: zone, saves: records)).saved
        let doomed = records.prefix(5).map { RecordDeletion(id: $0.id) }
        #expect(try await backend.modifyRecords(RecordBatch(zone: zone, deletions: doomed)).deleted.count == 5)

        var token: ChangeToken?
        var pages: [ChangeSet] = []
        repeat {
            let page = try await backend.fetchChanges(in: zone, since: token, limit: 10)
            #expect(page.changed.count + page.deleted.count <= 10)
            pages.append(page)
            token = page.token
        } while pages.last!.moreComing && pages.count < 10
        #expect(pages.count == 3)
        #expect(pages.dropLast().allSatisfy(\.moreComing) && !pages.last!.moreComing)
        let changed = pages.flatMap(\.changed)
        let deleted = pages.flatMap(\.deleted)
        #expect(Set(changed.map(\.id)) == Set(records.dropFirst(5).map(\.id)))
        #expect(changed.count == 20, "each record appears once, in its latest state")
        #expect(Set(deleted) == Set(doomed.map(\.id)))
        #expect(changed.allSatisfy { saved[$0.id] == $0 })

        // Nothing new: an empty, final page. Then exactly what changed since.
        let quiet = try await backend.fetchChanges(in: zone, since: token, limit: 10)
        #expect(quiet.changed.isEmpty && quiet.deleted.isEmpty && !quiet.moreComing)
        var edited = saved[records[10].id]!
        edited.path = RelativePath("renamed")
        _ = try await backend.save(edited)
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: records[11].id)]))
        let since = try await backend.fetchAllChanges(in: zone, since: quiet.token)
        #expect(Array(since.changed.keys) == [edited.id] && since.changed[edited.id]?.path == RelativePath("renamed"))
        #expect(since.deleted == [records[11].id])
    }

    static func tokenPastOwnBatch(_ fixture: BackendFixture, _ zone: ZoneID) async throws {
        let backend = fixture.backend
        try await backend.createZone(zone)
        let first = try await backend.save(TestRecords.folder(zone, "first"))
        let current = try await backend.fetchAllChanges(in: zone, since: nil).token

        // Holding the latest token: the answer's token skips exactly this batch's changes.
        var renamed = first
        renamed.path = RelativePath("first-renamed")
        let added = TestRecords.folder(zone, "added")
        let stale = TestRecords.folder(zone, "stale", name: first.id.recordName)  // untagged: fails
        let result = try await backend.modifyRecords(RecordBatch(zone: zone, saves: [renamed, added], knownToken: current))
        #expect(result.failed.isEmpty && result.saved.count == 2)
        let skipped = try #require(result.token, "a sender holding the latest token is given the next one")
        let afterSkip = try await backend.fetchChanges(in: zone, since: skipped, limit: 10)
        #expect(afterSkip.changed.isEmpty && afterSkip.deleted.isEmpty && !afterSkip.moreComing)
        let fetched = try await backend.fetchAllChanges(in: zone, since: current)
        #expect(Set(fetched.changed.keys) == [first.id, added.id], "the skipped changes are the batch's own")

        // A failed item changes nothing and still leaves the sender current; so does a deletion.
        let mixed = try await backend.modifyRecords(RecordBatch(zone: zone, saves: [stale], deletions: [RecordDeletion(id: added.id)],
                                                                knownToken: skipped))
        #expect(mixed.failed.keys.contains(stale.id) && mixed.deleted == [added.id])
        let afterMixed = try #require(mixed.token)
        let quiet = try await backend.fetchChanges(in: zone, since: afterMixed, limit: 10)
        #expect(quiet.changed.isEmpty && quiet.deleted.isEmpty)

        // Another client changed the zone after the sender's token: no token, and a fetch
        // from the old token finds both that change and the sender's own.
        let other = try await fixture.openAnotherClient()
        let theirs = try await other.save(TestRecords.folder(zone, "theirs"))
        let mine = TestRecords.folder(zone, "mine")
        let behind = try await backend.modifyRecords(RecordBatch(zone: zone, saves: [mine], knownToken: afterMixed))
        #expect(behind.saved.count == 1 && behind.token == nil, "a sender that missed a change is given no token")
        let caughtUp = try await backend.fetchAllChanges(in: zone, since: afterMixed)
        #expect(Set(caughtUp.changed.keys) == [theirs.id, mine.id])

        // No token named, or one that is not this zone's: no token given.
        #expect(try await backend.modifyRecords(RecordBatch(zone: zone, saves: [TestRecords.folder(zone, "plain")])).token == nil)
        let otherZone = ZoneID("Elsewhere")
        try await backend.createZone(otherZone)
        let elsewhere = try await backend.fetchAllChanges(in: otherZone, since: nil).token
        #expect(try await backend.modifyRecords(RecordBatch(zone: zone, saves: [TestRecords.folder(zone, "x")], knownToken: elsewhere)).token == nil)
    }

    static func tokenSurvivesReopen(_ fixture: BackendFixture, _ zone: ZoneID) async throws {
        try await fixture.backend.createZone(zone)
        _ = try await fixture.backend.save(TestRecords.folder(zone, "before"))
        let token = try await fixture.backend.fetchAllChanges(in: zone, since: nil).token
        let encoded = try WireCoding.encoder.encode(token)
        let reopened = try await fixture.openAnotherClient()
        let after = try await reopened.save(TestRecords.folder(zone, "after"))
        let restored = try WireCoding.decoder.decode(ChangeToken.self, from: encoded)
        let changes = try await reopened.fetchAllChanges(in: zone, since: restored)
        #expect(Array(changes.changed.keys) == [after.id])
    }

    static func compaction(_ fixture: BackendFixture, _ zone: ZoneID) async throws {
        let backend = fixture.backend
        try await backend.createZone(zone)
        let keep = try await backend.save(TestRecords.folder(zone, "keep"))
        let gone = try await backend.save(TestRecords.folder(zone, "gone"))
        let beforeDeletion = try await backend.fetchAllChanges(in: zone, since: nil).token
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: gone.id)]))
        let afterDeletion = try await backend.fetchAllChanges(in: zone, since: beforeDeletion)
        #expect(afterDeletion.deleted == [gone.id])
        try await fixture.compactAllTombstones()
        await expectSyncError(.changeTokenExpired) { try await backend.fetchChanges(in: zone, since: beforeDeletion, limit: 100) }
        // A token that already saw the deletion stays valid; a full refetch always works.
        let later = try await backend.fetchAllChanges(in: zone, since: afterDeletion.token)
        #expect(later.changed.isEmpty && later.deleted.isEmpty)
        let everything = try await backend.fetchAllChanges(in: zone, since: nil)
        #expect(Array(everything.changed.keys) == [keep.id] && everything.deleted.isEmpty)
    }

    static func unknownZone(_ backend: any StorageBackend, _ zone: ZoneID) async throws {
        let ghost = ZoneID("Ghost")
        await expectSyncError(.zoneNotFound) { try await backend.modifyRecords(RecordBatch(zone: ghost, saves: [TestRecords.folder(ghost, "x")])) }
        await expectSyncError(.zoneNotFound) { try await backend.fetchChanges(in: ghost, since: nil, limit: 10) }
        await expectSyncError(.zoneNotFound) { try await backend.fetchRecords([RecordID(zone: ghost, recordName: "x")]) }
        await expectSyncError(.zoneNotFound) { try await backend.deleteZone(ghost) }
        #expect(try await backend.listZones().isEmpty)
    }

    static func zoneLifecycle(_ backend: any StorageBackend, _ zone: ZoneID) async throws {
        try await backend.createZone(zone)
        try await backend.createZone(zone)  // creating twice is fine
        try await backend.createZone(ZoneID("Pictures"))
        #expect(try await backend.listZones() == [zone, ZoneID("Pictures")])
        _ = try await backend.save(TestRecords.folder(zone, "x"))
        let token = try await backend.fetchAllChanges(in: zone, since: nil).token
        try await backend.deleteZone(zone)
        #expect(try await backend.listZones() == [ZoneID("Pictures")])
        await expectSyncError(.zoneNotFound) { try await backend.fetchChanges(in: zone, since: token, limit: 10) }
        try await backend.createZone(zone)
        await expectSyncError(.changeTokenExpired) { try await backend.fetchChanges(in: zone, since: token, limit: 10) }
        #expect(try await backend.fetchAllChanges(in: zone, since: nil).changed.isEmpty, "a recreated zone starts empty")
        await expectSyncError(.changeTokenExpired) { try await backend.fetchChanges(in: ZoneID("Pictures"), since: token, limit: 10) }
    }

    static func chunkStoredTwice(_ backend: any StorageBackend) async throws {
        let bytes = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let digest = SHA256Digest(hashing: bytes)
        #expect(try await backend.missingChunks([digest]) == [digest])
        try await backend.uploadChunk(digest, bytes: bytes)
        try await backend.uploadChunk(digest, bytes: bytes)
        #expect(try await backend.missingChunks([digest]).isEmpty)
        let usage = try await backend.usage()
        #expect(usage.chunkCount == 1 && usage.chunkBytes == Int64(bytes.count))
        #expect(try await backend.downloadChunk(digest) == bytes)
    }

    static func chunkDigestMismatch(_ backend: any StorageBackend) async throws {
        let bytes = Data("the real bytes".utf8)
        let wrong = SHA256Digest(hashing: Data("other bytes".utf8))
        let error = await expectSyncError(.chunkDigestMismatch) { try await backend.uploadChunk(wrong, bytes: bytes) }
        #expect(error?.digest == wrong)
        #expect(try await backend.missingChunks([wrong]) == [wrong])
        #expect(try await backend.usage().chunkCount == 0)
    }

    static func missingVersusCorrupt(_ fixture: BackendFixture) async throws {
        let backend = fixture.backend
        let bytes = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0) })
        let digest = SHA256Digest(hashing: bytes)
        let missing = await expectSyncError(.chunkNotFound) { try await backend.downloadChunk(digest) }
        #expect(missing?.digest == digest)
        try await backend.uploadChunk(digest, bytes: bytes)
        try await fixture.corruptChunk(digest)
        let corrupt = await expectSyncError(.chunkCorrupt) { try await backend.downloadChunk(digest) }
        #expect(corrupt?.digest == digest)
    }

    static func documentWithoutChunks(_ backend: any StorageBackend, _ zone: ZoneID) async throws {
        try await backend.createZone(zone)
        let content = Data("never uploaded".utf8)
        let manifest = content.withUnsafeBytes { AssetChunker().chunk($0) }
        let reference = ManifestTree.build(manifest).reference
        let record = Record(id: RecordID(zone: zone, recordName: RecordID.newName()), type: .document, path: RelativePath("x.txt"),
                            size: Int64(content.count), modified: .now, mode: 0o644, contentDigest: manifest.contentDigest,
                            asset: reference, lastModifiedBy: "t")
        let result = try await backend.modifyRecords(RecordBatch(zone: zone, saves: [record]))
        #expect(result.failed[record.id]?.code == .chunkNotFound)
        #expect(try await backend.fetchRecords([record.id]).isEmpty)
    }

    static func invalidRecords(_ backend: any StorageBackend, _ zone: ZoneID) async throws {
        try await backend.createZone(zone)
        var folderWithTarget = TestRecords.folder(zone, "f")
        folderWithTarget.symlinkTarget = "x"
        let otherZone = TestRecords.folder(ZoneID("Elsewhere"), "g")
        var badMode = TestRecords.folder(zone, "h")
        badMode.mode = 0o100755
        let result = try await backend.modifyRecords(RecordBatch(zone: zone, saves: [folderWithTarget, otherZone, badMode]))
        #expect(result.failed.count == 3)
        #expect(result.failed.values.allSatisfy { $0.code == .invalidArguments })
        await expectSyncError(.invalidArguments) { try RelativePath(validating: "../escape") }
        await expectSyncError(.invalidArguments) { try RelativePath(validating: "/etc/passwd") }
        await expectSyncError(.invalidArguments) { try RelativePath(validating: "a/\u{0}b") }
    }

    static func largeAsset(_ backend: any StorageBackend) async throws {
        var random = SeededRandom(seed: 99)
        let content = Data(random.bytes(3 << 20))  // ~190 chunks: a manifest tree of depth 1
        let stored = try await backend.storeAsset(content)
        #expect(stored.reference.depth == 1)
        #expect(stored.uploadedManifestNodes > 0)
        #expect(try await backend.loadAsset(stored.reference) == content)
        let again = try await backend.storeAsset(content)
        #expect(again.uploadedDataBytes == 0 && again.uploadedManifestBytes == 0, "stored chunks are not sent again")
    }

    static func concurrentClients(_ fixture: BackendFixture, _ zone: ZoneID) async throws {
        let first = fixture.backend
        let second = try await fixture.openAnotherClient()
        try await first.createZone(zone)
        let counter = try await first.save(TestRecords.folder(zone, "counter-0"))
        let perClient = 10
        // Each client adds its own records and bumps one shared record, merging on conflicts.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, client) in [first, second].enumerated() {
                group.addTask {
                    for round in 0..<perClient {
                        let batch = (0..<10).map { TestRecords.folder(zone, "c\(index)/r\(round)-\($0)") }
                        let result = try await client.modifyRecords(RecordBatch(zone: zone, saves: batch))
                        #expect(result.failed.isEmpty)
                        var base = try #require(try await client.fetchRecords([counter.id])[counter.id])
                        while true {
                            let value = Int(base.path.string.split(separator: "-").last!)!
                            var bumped = base
                            bumped.path = RelativePath("counter-\(value + 1)")
                            do {
                                _ = try await client.save(bumped)
                                break
                            } catch let error as SyncError where error.code == .serverRecordChanged {
                                base = try #require(error.serverRecord)
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let all = try await first.fetchAllChanges(in: zone, since: nil, pageSize: 1000)
        #expect(all.changed.count == 2 * perClient * 10 + 1)
        #expect(all.changed[counter.id]?.path == RelativePath("counter-\(2 * perClient)"), "no increment lost")
    }

    static func notifications(_ fixture: BackendFixture, _ zone: ZoneID) async throws {
        let listener = try await fixture.openAnotherClient()
        try await fixture.backend.createZone(zone)
        let stream = listener.changeNotifications()
        let received = NotificationCollector(stream)
        _ = try await fixture.backend.save(TestRecords.folder(zone, "ping"))
        let heard = await eventually(timeout: .seconds(60)) { received.zones.contains(zone) }
        #expect(heard, "a save by one client is announced to another")
    }
}

import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Moving a zone as the store algorithm decides it for every store (SPEC §13): one write
/// that empties the zone into a redirect, what its versions referenced released, and
/// `zoneMoved` for every later operation naming it but its deletion.
@Suite struct MoveZoneAlgorithmTests {
    let zone = ZoneID("Documents"), target = ZoneID("Sealed")
    let now = Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000)

    /// The zone (moved into `movedTo` when given) and the target, as a store keeps them.
    func zones(movedTo: String? = nil) -> [String: ZoneState] {
        ["Documents": ZoneState(incarnation: "inc", lastSeq: 50, compactedThrough: 0, movedTo: movedTo),
         "Sealed": ZoneState(incarnation: "sealed", lastSeq: 60, compactedThrough: 0)]
    }

    /// A document of `zone` whose asset is `content`'s, with the asset's manifest nodes.
    func document(_ name: String, _ content: Data) -> (StoredVersion, AssetReference, [ManifestTree.Node]) {
        let manifest = content.withUnsafeBytes { AssetChunker(parameters: .documents).chunk($0) }
        let (reference, nodes) = ManifestTree.build(manifest)
        let record = Record(id: RecordID(zone: zone, recordName: name), type: .document, path: RelativePath("\(name).bin"),
                            size: Int64(content.count), modified: now, mode: 0o644, contentDigest: manifest.contentDigest,
                            asset: reference, lastModifiedBy: "laptop")
        return (StoredVersion(changeTag: "t", seq: 7, body: CompactCoding.encode(record)), reference, nodes)
    }

    @Test func aMoveEmptiesTheZoneIntoARedirectAndReleasesWhatItsVersionsReferenced() throws {
        let (small, smallAsset, _) = document("small", Data("a small file\n".utf8))
        var random = SeededRandom(seed: 5)
        let (large, largeAsset, nodes) = document("large", Data(random.bytes(3 << 20)))
        let (gone, goneAsset, _) = document("gone", Data("deleted\n".utf8))
        #expect(largeAsset.depth == 1 && !nodes.isEmpty)
        var table = TableRows(zones: zones(), live: ["small": small, "large": large],
                              deleted: ["gone": StoredDeletion(name: "gone", version: gone, deletedAt: now, deletedBy: "laptop")])
        let outcome = try StoreAlgorithm.moveZone(zone, to: target, now: now, in: &table)
        #expect(outcome.wrote && outcome.announces)
        let writes = try #require(table.written.first)
        #expect(table.written.count == 1 && writes.zone == "Documents" && writes.moveTo == "Sealed")
        #expect(writes.lastSeq == 100, "the zone's last change moves on, so its subscribers hear of the move")
        #expect(writes.saves.isEmpty && writes.deletions.isEmpty && writes.replaced.isEmpty && !writes.deleteZone)
        var released = outcome.value
        let topLevel = (smallAsset.entries + largeAsset.entries + goneAsset.entries).map { (ref: ChunkRef) in ref.digest }
        #expect(released.digests == Set(topLevel), "every kept version's asset: live records and Recently Deleted")
        let level = released.nextNodes()
        #expect(Set(level.keys) == Set(largeAsset.entries.map(\.digest)), "the large asset's nodes are read next")
        var bytes: [SHA256Digest: Data] = [:]
        for node in nodes { bytes[node.ref.digest] = node.bytes }
        released.read(level, bytes: bytes)
        #expect(released.nextNodes().isEmpty)
        let listed = try nodes.flatMap { node throws(SyncError) in try ManifestTree.decodeNode(node.bytes, ref: node.ref) }.map { (ref: ChunkRef) in ref.digest }
        #expect(released.digests == Set(topLevel + listed), "and, once the nodes are read, every chunk they list")
    }

    @Test func aRetriedMoveChangesNothingAndAMoveElsewhereIsRefused() async throws {
        var table = TableRows(zones: zones(movedTo: "Sealed"))
        let retried = try StoreAlgorithm.moveZone(zone, to: target, now: now, in: &table)
        #expect(!retried.wrote && retried.value.digests.isEmpty && table.written.isEmpty)
        table.zones["Pictures"] = ZoneState(incarnation: "p", lastSeq: 1, compactedThrough: 0)
        let elsewhere = await expectSyncError(.zoneMoved) { try StoreAlgorithm.moveZone(zone, to: ZoneID("Pictures"), now: now, in: &table) }
        #expect(elsewhere?.movedTo == target)
        let intoRedirect = await expectSyncError(.zoneMoved) { try StoreAlgorithm.moveZone(ZoneID("Pictures"), to: zone, now: now, in: &table) }
        #expect(intoRedirect?.movedTo == target, "a redirect is no target: it names where it went")
        await expectSyncError(.invalidArguments) { try StoreAlgorithm.moveZone(target, to: target, now: now, in: &table) }
        await expectSyncError(.zoneNotFound) { try StoreAlgorithm.moveZone(ZoneID("Ghost"), to: target, now: now, in: &table) }
        await expectSyncError(.zoneNotFound) { try StoreAlgorithm.moveZone(target, to: ZoneID("Ghost"), now: now, in: &table) }
        #expect(table.written.isEmpty)
    }

    @Test func everyOperationOnARedirectButItsDeletionIsZoneMoved() async throws {
        var table = TableRows(zones: zones(movedTo: "Sealed"))
        let id = RecordID(zone: zone, recordName: "a")
        let retention = StoreRetention(settings: StoreSettings())
        let refused: [(String, () throws -> Void)] = [
            ("create", { var rows = table; _ = try StoreAlgorithm.createZone(zone, now: now, in: &rows) }),
            ("modify", { var rows = table; _ = try StoreAlgorithm.modify(RecordBatch(zone: zone, saves: [TestRecords.folder(zone, "a")]),
                                                                        failedBefore: [:], now: now, in: &rows) }),
            ("changes", { _ = try StoreAlgorithm.changes(in: zone, since: nil, limit: 10, table) }),
            ("records", { _ = try StoreAlgorithm.records([id], table) }),
            ("list deleted", { _ = try StoreAlgorithm.listDeleted(in: zone, since: nil, now: now, retention: retention, table) }),
            ("recover", { var rows = table; _ = try StoreAlgorithm.recover([DeletedRecordRecovery(id: id, device: "d")], in: zone, now: now,
                                                                          retention: retention, in: &rows) }),
            ("purge", { var rows = table; _ = try StoreAlgorithm.purge(nil, in: zone, now: now, in: &rows) }),
        ]
        for (what, call) in refused {
            let error = await expectSyncError(.zoneMoved) { try call() }
            #expect(error?.movedTo == target, "\(what)")
        }
        #expect(try StoreAlgorithm.listZones(table) == [target], "a redirect is not listed")
        let deletion = try StoreAlgorithm.deleteZone(zone, now: now, in: &table)
        #expect(deletion.wrote && table.written.first?.deleteZone == true, "deleting the redirect removes it")
    }
}

import DocSyncCore
import Foundation

/// What sealing costs per record and per small file (SPEC §13), one core, against the plain
/// work it adds to: the compact encoding of the same records. A figure for the encryption
/// issue's CPU budget (a small file's sync costs the sender some tens of microseconds).
struct SealCost {
    let records: Int
    let encodeMicroseconds: Double
    let sealMicroseconds: Double
    let openMicroseconds: Double
    let smallChunkMicroseconds: Double

    var lines: [String] {
        [String(format: "record: compact encoding %.2f µs, seal %.2f µs, open %.2f µs (%d records)", encodeMicroseconds, sealMicroseconds, openMicroseconds, records),
         String(format: "a 4 KiB file's chunk: MAC id + seal + SHA-256 of the sealed body %.2f µs", smallChunkMicroseconds)]
    }

    static func measure(records count: Int = 100_000) -> SealCost {
        let keys = try! FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: 1)
        let zone = ZoneID("e.benchmarkbenchmarkbenchmark")
        let content = Data(repeating: 0x61, count: 4_096)
        let digest = SHA256Digest(hashing: content)
        let records = (0..<count).map { number in
            Record(id: RecordID(zone: ZoneID("Documents"), recordName: String(format: "0190a1b2c3d4e5f6%016x", number)), type: .document,
                   changeTag: ChangeTag("1"), path: RelativePath("folder \(number / 100)/file \(number).txt"), size: 4_096,
                   modified: Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000 + Int64(number)), mode: 0o644, contentDigest: digest,
                   asset: AssetReference(depth: 0, entries: [ChunkRef(digest: digest, length: 4_096)], chunkCount: 1, size: 4_096, contentDigest: digest),
                   lastModifiedBy: "laptop", lastEditorName: "alice")
        }
        func perItem(_ body: () -> Void) -> Double {
            let start = ContinuousClock.now
            body()
            let elapsed = ContinuousClock.now - start
            return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) / Double(count) * 1e6
        }
        var bytes = 0
        let encode = perItem { for record in records { bytes &+= CompactCoding.encode(record).count } }
        var blobs: [Data] = []
        blobs.reserveCapacity(count)
        let seal = perItem { for record in records { blobs.append(keys.sealRecord(record, version: 1, zone: zone, visibleType: "Sealed")) } }
        let open = perItem {
            for (record, blob) in zip(records, blobs) {
                bytes &+= (try? keys.openRecord(blob, recordName: record.id.recordName, zone: zone, visibleType: "Sealed"))?.record.size == 4_096 ? 1 : 0
            }
        }
        let chunk = perItem {
            for _ in 0..<count { bytes &+= keys.sealChunk(content, id: keys.chunkID(of: content), zone: zone).body.count }
        }
        precondition(bytes > 0)
        return SealCost(records: count, encodeMicroseconds: encode, sealMicroseconds: seal, openMicroseconds: open, smallChunkMicroseconds: chunk)
    }
}

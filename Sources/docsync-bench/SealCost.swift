import Crypto
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
    /// A 16 KiB chunk (the documents chunker's typical size): the plain sender's and
    /// receiver's work (its SHA-256), the encrypted sender's (MAC id, seal, SHA-256 of the
    /// body) and the encrypted receiver's (open, MAC check), each per chunk.
    let chunkPlainMicroseconds: Double
    let chunkSealMicroseconds: Double
    let chunkOpenMicroseconds: Double
    /// swift-crypto's `AES.GCM.seal` alone on 4 KiB and 16 KiB: the line through the two is
    /// its fixed cost per call (context set-up, the allocations and copies its API makes)
    /// and its cost per byte.
    let gcmSmallMicroseconds: Double
    let gcmTypicalMicroseconds: Double

    var lines: [String] {
        [String(format: "record: compact encoding %.2f µs, seal %.2f µs, open %.2f µs (%d records)", encodeMicroseconds, sealMicroseconds, openMicroseconds, records),
         String(format: "a 4 KiB file's chunk: MAC id + seal + SHA-256 of the sealed body %.2f µs", smallChunkMicroseconds),
         String(format: "a 16 KiB chunk: SHA-256 %.2f µs; MAC id + seal + SHA-256 of the body %.2f µs; open + MAC check %.2f µs",
                chunkPlainMicroseconds, chunkSealMicroseconds, chunkOpenMicroseconds),
         String(format: "AES.GCM.seal alone: 4 KiB %.2f µs, 16 KiB %.2f µs (%.2f µs a call, %.2f GB/s beyond it)",
                gcmSmallMicroseconds, gcmTypicalMicroseconds, gcmFixedMicroseconds, 12_288 / (gcmTypicalMicroseconds - gcmSmallMicroseconds) / 1_000)]
    }

    /// The fixed cost of one `AES.GCM.seal`, from the 4 KiB and 16 KiB timings.
    var gcmFixedMicroseconds: Double {
        gcmSmallMicroseconds - (gcmTypicalMicroseconds - gcmSmallMicroseconds) / 3
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
        let typical = Data((0..<16_384).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let plain = perItem { for _ in 0..<count { bytes &+= SHA256Digest(hashing: typical).hex.count } }
        var sealed: SealedChunk?
        let sealTypical = perItem {
            for _ in 0..<count { sealed = keys.sealChunk(typical, id: keys.chunkID(of: typical), zone: zone); bytes &+= sealed!.body.count }
        }
        let openTypical = perItem {
            for _ in 0..<count { bytes &+= (try? keys.openChunk(sealed!.body, id: sealed!.id, zone: zone))?.count ?? 0 }
        }
        // One nonce for every call (a benchmark's throwaway key): the timing leaves out drawing it.
        let key = SymmetricKey(size: .bits256), associated = [UInt8](repeating: 7, count: 80), nonce = AES.GCM.Nonce()
        let gcm = { (plaintext: Data) in
            perItem { for _ in 0..<count { bytes &+= (try! AES.GCM.seal(plaintext, using: key, nonce: nonce, authenticating: associated)).ciphertext.count } }
        }
        let gcmSmall = gcm(content), gcmTypical = gcm(typical)
        precondition(bytes > 0)
        return SealCost(records: count, encodeMicroseconds: encode, sealMicroseconds: seal, openMicroseconds: open, smallChunkMicroseconds: chunk,
                        chunkPlainMicroseconds: plain, chunkSealMicroseconds: sealTypical, chunkOpenMicroseconds: openTypical,
                        gcmSmallMicroseconds: gcmSmall, gcmTypicalMicroseconds: gcmTypical)
    }
}

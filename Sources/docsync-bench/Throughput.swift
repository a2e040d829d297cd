import DocSyncCore
import Foundation

/// Chunk + hash speed against its parts, all measured in one run on one thread.
struct Throughput {
    struct Row: Encodable {
        let name: String
        let medianMBps: Double
        let minMBps: Double
        let maxMBps: Double

        var line: String {
            "\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(String(format: "%7.0f MB/s  (%.0f–%.0f)", medianMBps, minMBps, maxMBps))"
        }
    }

    let rows: [Row]
    /// Median MB/s of the full chunk + hash pass.
    var chunkAndHash: Double { rows[0].medianMBps }
    /// Two SHA-256 passes (one per chunk, one for the whole file) bound chunk+hash from above.
    let ceiling: Double

    static func measure(_ content: Data, rounds: Int) -> Throughput {
        func rate(_ body: () -> Void) -> Double {
            let start = ContinuousClock.now
            body()
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return Double(content.count) / seconds / 1e6
        }
        var samples: [String: [Double]] = [:]
        let names = ["chunk + SHA-256 per chunk + SHA-256 of file", "SHA-256 alone (one pass)", "gear boundaries alone (no hashing)",
                     "encrypted: keyed chunk + MAC id + seal + SHA-256 of sealed and of file", "seal as one chunk (AES-256-GCM + SHA-256 of the body)"]
        // The encrypted pass keeps every sealed chunk (as a sender holds a page of them): its
        // memory is the content's size again.
        let keys = try! FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: 1)
        let zone = ZoneID("e.benchmarkbenchmarkbenchmark")
        content.withUnsafeBytes { raw in
            // Interleaved so that machine noise hits every measurement alike.
            for _ in 0..<rounds {
                samples[names[0], default: []].append(rate { _ = AssetChunker().chunk(raw) })
                samples[names[1], default: []].append(rate { _ = SHA256Digest(hashing: raw) })
                samples[names[2], default: []].append(rate {
                    var chunker = ContentDefinedChunker()
                    var start = 0
                    while start < raw.count { start += chunker.nextChunkLength(of: UnsafeRawBufferPointer(rebasing: raw[start...])) }
                })
                // What an encrypted folder's sender does per byte (SPEC §13, `sealAsset`): boundaries
                // from the epoch's gear table, each chunk's id its HMAC, its body sealed and that
                // body's SHA-256 (the server verifies it), the file's own SHA-256 (sealed in the
                // record), the manifest tree.
                samples[names[3], default: []].append(rate { _ = keys.sealAsset(content, zone: zone) })
                samples[names[4], default: []].append(rate { _ = keys.sealChunk(raw, id: SHA256Digest(hashing: Data()), zone: zone) })
            }
        }
        let rows = names.map { name in
            let sorted = samples[name]!.sorted()
            return Row(name: name, medianMBps: sorted[sorted.count / 2], minMBps: sorted.first!, maxMBps: sorted.last!)
        }
        return Throughput(rows: rows, ceiling: rows[1].medianMBps / 2)
    }
}

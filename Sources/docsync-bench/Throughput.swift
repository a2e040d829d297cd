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
        let names = ["chunk + SHA-256 per chunk + SHA-256 of file", "SHA-256 alone (one pass)", "gear boundaries alone (no hashing)"]
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
            }
        }
        let rows = names.map { name in
            let sorted = samples[name]!.sorted()
            return Row(name: name, medianMBps: sorted[sorted.count / 2], minMBps: sorted.first!, maxMBps: sorted.last!)
        }
        return Throughput(rows: rows, ceiling: rows[1].medianMBps / 2)
    }
}

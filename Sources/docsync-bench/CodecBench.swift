import DocSyncCore
import Foundation

extension BenchCommand {
    /// `--only codec`: encoding and decoding `codecRecords` records (seeded: documents with
    /// a small manifest, folders and symlinks, some of them unsaved) in the compact form the
    /// index and the stores keep and in the wire JSON, each the median of `rounds` passes.
    /// Throws when a decoded record differs from the one encoded.
    func runCodec() throws {
        print("\n== Record codecs: \(codecRecords) records (median of \(max(rounds, 1)) passes, min–max) ==")
        let report = try CodecBench.run(records: codecRecords, rounds: max(rounds, 1))
        for row in report.rows { print(row.line) }
        try write(report, to: codecJSON)
    }
}

/// The record codecs, timed over many records in one thread.
enum CodecBench {
    struct Row: Encodable {
        let name: String
        let medianMilliseconds: Double
        let minMilliseconds: Double
        let maxMilliseconds: Double
        /// Bytes of all the records in this encoding.
        let bytes: Int

        var line: String {
            "\(name.padding(toLength: 34, withPad: " ", startingAt: 0)) \(String(format: "%8.1f ms  (%.1f–%.1f)  %6.1f MB", medianMilliseconds, minMilliseconds, maxMilliseconds, Double(bytes) / 1e6))"
        }
    }

    struct Report: Encodable {
        let records: Int
        let rows: [Row]
    }

    static func run(records count: Int, rounds: Int) throws -> Report {
        let records = Self.records(count)
        var compact: [Data] = [], json: [Data] = []
        var samples: [String: [Double]] = [:]
        let names = ["compact encode", "compact decode", "wire JSON encode", "wire JSON decode"]
        // Interleaved so that machine noise hits every codec alike.
        for _ in 0..<rounds {
            samples[names[0], default: []].append(milliseconds { compact = records.map { CompactCoding.encode($0) } })
            var decoded: [Record] = []
            samples[names[1], default: []].append(try milliseconds { decoded = try compact.map { try CompactCoding.decodeRecord($0) } })
            guard decoded == records else { throw BenchError("a compact-coded record did not decode to itself") }
            samples[names[2], default: []].append(try milliseconds { json = try records.map { try WireCoding.encode($0) } })
            samples[names[3], default: []].append(try milliseconds { decoded = try json.map { try WireCoding.decode(Record.self, from: $0) } })
            guard decoded == records else { throw BenchError("a wire JSON record did not decode to itself") }
        }
        let sizes = [compact.reduce(0) { $0 + $1.count }, compact.reduce(0) { $0 + $1.count },
                     json.reduce(0) { $0 + $1.count }, json.reduce(0) { $0 + $1.count }]
        let rows = names.enumerated().map { index, name in
            let sorted = samples[name]!.sorted()
            return Row(name: name, medianMilliseconds: sorted[sorted.count / 2], minMilliseconds: sorted.first!,
                       maxMilliseconds: sorted.last!, bytes: sizes[index])
        }
        return Report(records: count, rows: rows)
    }

    /// `count` records, the same on every run: 70 % documents of 1–8 chunks, 20 % folders,
    /// 10 % symlinks; paths of 1–4 components, some of them not ASCII; half of them saved.
    static func records(_ count: Int) -> [Record] {
        var random = SplitMix64(seed: 0xc0dec)
        let zone = ZoneID("Documents")
        let words = ["notes", "Projects", "café", "2024", "report final", "日本語", "src", "a.txt"]
        return (0..<count).map { index in
            let depth = Int.random(in: 1...4, using: &random)
            let path = RelativePath((0..<depth).map { _ in words.randomElement(using: &random)! }.joined(separator: "/") + "-\(index)")
            let id = RecordID(zone: zone, recordName: String(format: "%016llx%016llx", UInt64(index), random.next()))
            let tag = Bool.random(using: &random) ? ChangeTag(String(Int.random(in: 1...10_000_000, using: &random), radix: 36)) : nil
            let modified = Timestamp(nanosecondsSince1970: Int64.random(in: 1_500_000_000_000_000_000...1_800_000_000_000_000_000, using: &random))
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<7:
                let chunks = (0..<Int.random(in: 1...8, using: &random)).map { _ in
                    ChunkRef(digest: randomDigest(&random),
                             length: Int.random(in: 1...(1 << 20), using: &random))
                }
                let size = chunks.reduce(Int64(0)) { $0 + Int64($1.length) }
                let digest = randomDigest(&random)
                let asset = AssetReference(depth: 0, entries: chunks, chunkCount: chunks.count, size: size, contentDigest: digest)
                return Record(id: id, type: .document, changeTag: tag, path: path, size: size, modified: modified, mode: 0o644,
                              contentDigest: digest, asset: asset, lastModifiedBy: "laptop")
            case 7..<9:
                return Record(id: id, type: .folder, changeTag: tag, path: path, modified: modified, mode: 0o755, lastModifiedBy: "desktop")
            default:
                let target = "../\(words.randomElement(using: &random)!)"
                return Record(id: id, type: .symlink, changeTag: tag, path: path, size: Int64(target.utf8.count), modified: modified,
                              mode: 0o777, symlinkTarget: target, lastModifiedBy: "laptop")
            }
        }
    }

    static func randomDigest(_ random: inout SplitMix64) -> SHA256Digest {
        SHA256Digest(bytes: (0..<4).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } })!
    }

    static func milliseconds(_ work: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try work()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
    }
}

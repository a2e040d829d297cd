import DocSyncCore
import DocSyncPlatform
import DocSyncStorage
import Foundation

/// The garbage-collection benchmark of issue 23: one collection of an embedded store of a
/// million chunks, half of them garbage (deleted records past a short retention), packs
/// compaction included; and what a folder of 10,000 files takes on the backend before and
/// after half of it is deleted and the retention has passed.
enum GCBench {
    struct Collection: Encodable {
        let chunks: Int
        let chunkSize: Int
        let garbageChunks: Int
        /// The whole `docsync-server gc` command, process start included.
        let seconds: Double
        /// Peak resident memory of that process (`ru_maxrss`).
        let peakResidentMegabytes: Double
        let report: GarbageCollectionReport
        let usageAfter: StorageUsage
        let databaseBytesAfter: Int64
        let setupSeconds: Double

        var line: String {
            String(format: "docsync-server gc over %d chunks (%d garbage): %.1f s, peak RSS %.0f MB; removed %d chunks, compacted %d packs (%d chunks moved), removed %d; packs %.0f → %.0f MB; %d chunks left",
                   chunks, garbageChunks, seconds, peakResidentMegabytes, report.chunksRemoved, report.packsCompacted, report.chunksMoved,
                   report.packsRemoved, Double(report.packBytesBefore) / 1e6, Double(report.packBytesAfter) / 1e6, usageAfter.chunkCount)
        }
    }

    struct Folder: Encodable {
        /// Which half was deleted: `half the subfolders` (as an `rm -rf` of some) or `every
        /// other file` (spread over every pack).
        let deleted: String
        let files: Int
        let deletedFiles: Int
        let retentionSeconds: Double
        /// `usage()` and the bytes of the store's packs and database on disk, at each step.
        let before: Usage
        let afterDeletion: Usage
        let afterRetentionAndCollection: Usage
        let collectionSeconds: Double

        struct Usage: Encodable {
            let chunkCount: Int
            let chunkBytes: Int64
            let packBytes: Int64
            let databaseBytes: Int64
        }

        var line: String {
            func text(_ usage: Usage) -> String {
                String(format: "%6d chunks, %6.1f MB of chunks; on disk %6.1f MB of packs + %5.1f MB of database", usage.chunkCount,
                       Double(usage.chunkBytes) / 1e6, Double(usage.packBytes) / 1e6, Double(usage.databaseBytes) / 1e6)
            }
            return """
                \(deleted): \(deletedFiles) of \(files) files deleted
                  before:                          \(text(before))
                  deleted (Recently Deleted):      \(text(afterDeletion))
                  after \(retentionSeconds) s and a collection:  \(text(afterRetentionAndCollection)) (collection \(String(format: "%.2f", collectionSeconds)) s)
                """
        }
    }

    static let retention: TimeInterval = 1
    static let settings = StoreSettings(deletedRetention: retention, collectionInterval: 0, collectionGrace: 0)

    /// A store of `chunks` chunks of `chunkSize` random bytes in records of 10 chunks,
    /// uploaded a pack of 1,000 records at a time; in every other pack 80 % of the records
    /// are deleted, in the others 20 %, so half the chunks are garbage once the retention
    /// has passed and half the packs are mostly garbage. The store is a docsync-server
    /// user's; then `docsync-server gc` (built next to this program) collects it, measured
    /// as a process of its own.
    static func collection(base: URL, chunks: Int, chunkSize: Int) async throws -> Collection {
        let server = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("docsync-server")
        guard FileManager.default.isExecutableFile(atPath: server.path) else {
            throw BenchError("\(server.path) is missing: build everything with `swift build -c release` first")
        }
        let data = base.appendingPathComponent("data")
        let added = try MeasuredProcess.run(server, ["user", "add", "bench", "--data", data.path])
        guard added.status == 0 else { throw BenchError("docsync-server user add failed") }
        let directory = data.appendingPathComponent("users/bench")
        let setupStart = ContinuousClock.now
        let (stored, garbage) = try await fill(directory, chunks: chunks, chunkSize: chunkSize)
        let setup = (ContinuousClock.now - setupStart) / .seconds(1)
        try await waitPastRetention()
        let collected = try MeasuredProcess.run(server, ["gc", "--json", "--data", data.path, "--user", "bench",
                                                         "--deleted-retention", "\(retention)", "--gc-grace", "0"])
        struct Line: Decodable { let report: GarbageCollectionReport }
        guard collected.status == 0, let line = try? JSONDecoder().decode(Line.self, from: Data(collected.output.utf8)) else {
            throw BenchError("docsync-server gc failed (\(collected.status)): \(collected.output)")
        }
        let after = try await LocalBackend(directory: directory, options: .init(settings: settings, collectsOnSchedule: false)).usage()
        return Collection(chunks: stored, chunkSize: chunkSize, garbageChunks: garbage, seconds: collected.seconds,
                          peakResidentMegabytes: collected.peakResidentMegabytes, report: line.report, usageAfter: after,
                          databaseBytesAfter: bytes(in: directory, suffix: "sqlite") + bytes(in: directory, suffix: "-wal"), setupSeconds: setup)
    }

    /// Fills a new store in `directory` as `collection` describes; returns the chunks stored
    /// and how many of them are garbage once the retention has passed.
    static func fill(_ directory: URL, chunks: Int, chunkSize: Int) async throws -> (stored: Int, garbage: Int) {
        let backend = try LocalBackend(directory: directory, options: .init(settings: settings, collectsOnSchedule: false))
        let zone = ZoneID("Bench")
        try await backend.createZone(zone)
        let perRecord = 10, perPack = 1_000
        var generator = SplitMix64(seed: 0x6c)
        var garbage = 0, packIndex = 0, stored = 0
        while stored < chunks {
            let records = min(perPack, (chunks - stored) / perRecord)
            guard records > 0 else { break }
            var uploads: [ChunkUpload] = []
            var saves: [Record] = []
            uploads.reserveCapacity(records * perRecord)
            for index in 0 ..< records {
                var refs: [ChunkRef] = []
                var whole = Data(capacity: perRecord * chunkSize)
                for _ in 0 ..< perRecord {
                    let bytes = randomBytes(chunkSize, &generator)
                    let digest = SHA256Digest(hashing: bytes)
                    uploads.append(ChunkUpload(digest: digest, bytes: bytes, isVerified: true))
                    refs.append(ChunkRef(digest: digest, length: chunkSize))
                    whole.append(bytes)
                }
                let reference = AssetReference(depth: 0, entries: refs, chunkCount: perRecord, size: Int64(whole.count), contentDigest: SHA256Digest(hashing: whole))
                saves.append(Record(id: RecordID(zone: zone, recordName: "p\(packIndex)-r\(index)"), type: .document, path: RelativePath("p\(packIndex)/r\(index).bin"),
                                    size: reference.size, modified: .now, mode: 0o644, contentDigest: reference.contentDigest, asset: reference, lastModifiedBy: "bench"))
            }
            try await backend.uploadChunks(uploads)
            for batch in RecordBatch(zone: zone, saves: saves).split() {
                guard try await backend.modifyRecords(batch).failed.isEmpty else { throw BenchError("a save of the GC set-up failed") }
            }
            let share = packIndex % 2 == 0 ? 0.8 : 0.2
            let doomed = saves.prefix(Int(Double(records) * share)).map { RecordDeletion(id: $0.id, device: "bench") }
            for batch in RecordBatch(zone: zone, deletions: doomed).split() { _ = try await backend.modifyRecords(batch) }
            garbage += doomed.count * perRecord
            stored += records * perRecord
            packIndex += 1
        }
        return (stored, garbage)
    }

    /// A folder of `files` files of 1–64 KiB in subfolders of 100 (chunked as the engine
    /// chunks them, uploaded in that order) saved to a fresh store; half of it deleted —
    /// half the subfolders, or every other file; the retention waited out; one collection.
    static func folder(base: URL, files: Int, everyOtherFile: Bool) async throws -> Folder {
        let directory = base.appendingPathComponent(everyOtherFile ? "folder-interleaved" : "folder-subfolders")
        let backend = try LocalBackend(directory: directory, options: .init(settings: settings, collectsOnSchedule: false))
        let zone = ZoneID("Folder")
        try await backend.createZone(zone)
        var generator = SplitMix64(seed: 0xf01d)
        var saves: [Record] = []
        var uploads: [ChunkUpload] = []
        for index in 0 ..< files {
            let content = randomBytes(1024 + Int(generator.next() % (63 * 1024)), &generator)
            var pieces: [ChunkUpload] = []
            let manifest = content.withUnsafeBytes { raw in
                AssetChunker().chunk(raw) { ref, range in pieces.append(ChunkUpload(digest: ref.digest, bytes: content.subdata(in: range), isVerified: true)) }
            }
            let reference = ManifestTree.build(manifest).reference
            uploads += pieces
            saves.append(Record(id: RecordID(zone: zone, recordName: "f\(index)"), type: .document, path: RelativePath("d\(index / 100)/f\(index).bin"),
                                size: Int64(content.count), modified: .now, mode: 0o644, contentDigest: reference.contentDigest, asset: reference, lastModifiedBy: "bench"))
            if uploads.count >= 2_000 || index == files - 1 {
                try await backend.uploadChunks(uploads)
                uploads = []
            }
        }
        for batch in RecordBatch(zone: zone, saves: saves).split() {
            guard try await backend.modifyRecords(batch).failed.isEmpty else { throw BenchError("a save of the folder failed") }
        }
        func measure() async throws -> Folder.Usage {
            let usage = try await backend.usage()
            return Folder.Usage(chunkCount: usage.chunkCount, chunkBytes: usage.chunkBytes, packBytes: bytes(in: directory, suffix: ".pack"),
                                databaseBytes: bytes(in: directory, suffix: ".sqlite") + bytes(in: directory, suffix: ".sqlite-wal"))
        }
        let before = try await measure()
        let doomed = saves.enumerated().filter { everyOtherFile ? $0.offset % 2 == 0 : $0.offset < files / 2 }.map { RecordDeletion(id: $0.element.id, device: "bench") }
        for batch in RecordBatch(zone: zone, deletions: doomed).split() { _ = try await backend.modifyRecords(batch) }
        let afterDeletion = try await measure()
        try await waitPastRetention()
        let start = ContinuousClock.now
        _ = try await backend.collectGarbage()
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        return Folder(deleted: everyOtherFile ? "every other file" : "half the subfolders", files: files, deletedFiles: doomed.count,
                      retentionSeconds: retention, before: before, afterDeletion: afterDeletion,
                      afterRetentionAndCollection: try await measure(), collectionSeconds: seconds)
    }

    /// Waits until what was deleted before the call is older than the retention.
    static func waitPastRetention() async throws {
        try await Task.sleep(for: .seconds(retention + 0.1))
    }

    static func randomBytes(_ count: Int, _ generator: inout SplitMix64) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < count {
                var word = generator.next()
                let take = min(8, count - offset)
                withUnsafeBytes(of: &word) { raw.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: take) }
                offset += take
            }
        }
        return data
    }

    /// Bytes of the files under `directory` whose names end with `suffix`.
    static func bytes(in directory: URL, suffix: String) -> Int64 {
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey]) else { return 0 }
        var total: Int64 = 0
        for case let url as URL in walker where url.lastPathComponent.hasSuffix(suffix) {
            total += Int64((try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
        }
        return total
    }
}

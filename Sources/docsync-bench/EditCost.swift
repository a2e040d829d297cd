import DocSyncCore
import DocSyncStorage
import Foundation

/// What small edits to a large file cost: new chunks plus the manifest that changes.
enum EditCost {
    /// The configurations compared (the first is the one in use).
    static let candidates: [ChunkerParameters] = [
        .documents,
        ChunkerParameters(minimumSize: 4 * 1024, candidateSpacing: 8 * 1024, maximumSize: 32 * 1024),
        ChunkerParameters(minimumSize: 4 * 1024, candidateSpacing: 8 * 1024, maximumSize: 64 * 1024),
        ChunkerParameters(minimumSize: 8 * 1024, candidateSpacing: 16 * 1024, maximumSize: 128 * 1024),
    ]

    struct Middle: Encodable {
        let fileBytes: Int
        let chunks: Int
        let newChunks: Int
        let newChunkBytes: Int
        let newManifestNodes: Int
        let newManifestNodeBytes: Int
        let referenceBytes: Int
        let totalBytes: Int
        let seconds: Double

        init(fileBytes: Int, chunks: Int, upload: AssetUploadReport, seconds: Double) {
            self.fileBytes = fileBytes
            self.chunks = chunks
            newChunks = upload.uploadedDataChunks
            newChunkBytes = upload.uploadedDataBytes
            newManifestNodes = upload.uploadedManifestNodes
            newManifestNodeBytes = upload.uploadedManifestBytes
            referenceBytes = upload.referenceBytes
            totalBytes = newChunkBytes + newManifestNodeBytes + referenceBytes
            self.seconds = seconds
        }

        var line: String {
            """
            file \(fileBytes) bytes in \(chunks) chunks; after the edit:
              new data chunks      \(newChunks) chunk(s), \(newChunkBytes) bytes
              new manifest nodes   \(newManifestNodes) node(s), \(newManifestNodeBytes) bytes
              record's asset root  \(referenceBytes) bytes (JSON, resent with the record)
              total                \(totalBytes) bytes = \(String(format: "%.1f", Double(totalBytes) / 1024)) KiB (target ≤ 64 KiB: \(totalBytes <= 64 * 1024 ? "met" : "NOT met"))
              store the edited file: \(String(format: "%.3f", seconds)) s
            """
        }
    }

    /// Stores the file in a fresh local backend, inserts one byte in the middle, stores it
    /// again, and reports what the second store had to send.
    static func insertionInTheMiddle(_ content: Data) async throws -> Middle {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("docsync-bench-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let backend = try LocalBackend(directory: directory)
        let original = try await backend.storeAsset(content)
        var edited = content
        edited.insert(0x2a, at: content.count / 2)
        let start = ContinuousClock.now
        let after = try await backend.storeAsset(edited)
        let elapsed = ContinuousClock.now - start
        return Middle(fileBytes: content.count, chunks: original.reference.chunkCount, upload: after,
                      seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    struct Survey: Encodable {
        let parameters: String
        let averageChunk: Int
        let chunks: Int
        let medianEditBytes: Int
        let p90EditBytes: Int
        let maxEditBytes: Int
        let maxNewChunks: Int
        let editsOverBudget: Int

        static let header = "configuration                                        avg chunk  chunks   edit cost median / p90 / max (bytes)   max new chunks  over 64 KiB"

        var line: String {
            parameters.padding(toLength: 52, withPad: " ", startingAt: 0)
                + String(format: "%9d %7d   %10d / %6d / %6d %17d %12d", averageChunk, chunks, medianEditBytes, p90EditBytes, maxEditBytes, maxNewChunks, editsOverBudget)
        }
    }

    /// For one configuration: random 1–8 byte insertions and deletions across the file;
    /// each edit's cost is its new data chunks plus its new manifest nodes plus the root.
    static func survey(_ content: Data, parameters: ChunkerParameters, edits: Int) -> Survey {
        let chunker = AssetChunker(parameters: parameters)
        let base = content.withUnsafeBytes { chunker.chunk($0) }
        let baseTree = ManifestTree.build(base)
        let known = Set(base.chunks.map(\.digest)).union(baseTree.nodes.map(\.ref.digest))
        var state: UInt64 = 0xed17
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 17
        }
        var costs: [Int] = []
        var maxNewChunks = 0
        for index in 0..<edits {
            var edited = content
            let position = Int(next() % UInt64(content.count))
            let length = 1 + Int(next() % 8)
            if index.isMultiple(of: 2) {
                edited.insert(contentsOf: (0..<length).map { _ in UInt8(truncatingIfNeeded: next()) }, at: position)
            } else {
                edited.removeSubrange(position..<min(position + length, edited.count))
            }
            let manifest = edited.withUnsafeBytes { chunker.chunk($0) }
            let tree = ManifestTree.build(manifest)
            let newChunks = manifest.distinctChunks.filter { !known.contains($0.digest) }
            let newNodes = tree.nodes.filter { !known.contains($0.ref.digest) }
            let rootBytes = (try? WireCoding.encoder.encode(tree.reference).count) ?? 0
            costs.append(newChunks.reduce(0) { $0 + $1.length } + newNodes.reduce(0) { $0 + $1.bytes.count } + rootBytes)
            maxNewChunks = max(maxNewChunks, newChunks.count)
        }
        costs.sort()
        return Survey(parameters: parameters.description, averageChunk: Int(base.size) / max(base.chunks.count, 1),
                      chunks: base.chunks.count, medianEditBytes: costs[costs.count / 2],
                      p90EditBytes: costs[min(costs.count - 1, costs.count * 9 / 10)], maxEditBytes: costs.last!,
                      maxNewChunks: maxNewChunks, editsOverBudget: costs.filter { $0 > 64 * 1024 }.count)
    }
}

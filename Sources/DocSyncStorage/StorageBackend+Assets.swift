import DocSyncCore
import Foundation

/// What storing an asset cost: how many chunks and bytes actually had to travel.
public struct AssetUploadReport: Hashable, Sendable {
    public var reference: AssetReference
    /// Data chunks the backend did not have, and their bytes.
    public var uploadedDataChunks: Int
    public var uploadedDataBytes: Int
    /// Manifest nodes the backend did not have, and their bytes.
    public var uploadedManifestNodes: Int
    public var uploadedManifestBytes: Int
    /// Size of the reference the record carries (JSON), which travels with every save.
    public var referenceBytes: Int
}

extension StorageBackend {
    /// Chunks `content`, uploads the data chunks and manifest nodes the backend lacks
    /// (upload-first: call before saving the record that references the asset), and returns
    /// the reference for the record with what was sent.
    public func storeAsset(_ content: Data, parameters: ChunkerParameters = .documents) async throws(SyncError) -> AssetUploadReport {
        var pieces: [SHA256Digest: Range<Int>] = [:]
        let manifest = content.withUnsafeBytes { raw in
            AssetChunker(parameters: parameters).chunk(raw) { ref, range in pieces[ref.digest] = range }
        }
        let (reference, nodes) = ManifestTree.build(manifest)
        let wanted = Array(pieces.keys) + nodes.map(\.ref.digest)
        let missing = try await missingChunks(wanted)
        var report = AssetUploadReport(reference: reference, uploadedDataChunks: 0, uploadedDataBytes: 0,
                                       uploadedManifestNodes: 0, uploadedManifestBytes: 0,
                                       referenceBytes: (try? WireCoding.encoder.encode(reference).count) ?? 0)
        for (digest, range) in pieces where missing.contains(digest) {
            try await uploadChunk(digest, bytes: content.subdata(in: range.lowerBound + content.startIndex..<range.upperBound + content.startIndex))
            report.uploadedDataChunks += 1
            report.uploadedDataBytes += range.count
        }
        for node in nodes where missing.contains(node.ref.digest) {
            try await uploadChunk(node.ref.digest, bytes: node.bytes)
            report.uploadedManifestNodes += 1
            report.uploadedManifestBytes += node.bytes.count
        }
        return report
    }

    /// The full chunk list of an asset. Its manifest nodes are taken from `knownNodes` where
    /// they are there (nodes of a version this device holds, `ManifestTree.nodesByDigest`)
    /// and downloaded otherwise, one `downloadChunks` call per level of the tree. Every node
    /// is verified against its digest, wherever it came from.
    public func loadManifest(_ reference: AssetReference, knownNodes: [SHA256Digest: Data] = [:]) async throws(SyncError) -> AssetManifest {
        try await ManifestTree.expand(reference) { refs throws(SyncError) in
            var nodes: [SHA256Digest: Data] = [:]
            var wanted: [SHA256Digest] = []
            for ref in refs {
                if let known = knownNodes[ref.digest] { nodes[ref.digest] = known } else { wanted.append(ref.digest) }
            }
            if !wanted.isEmpty { nodes.merge(try await downloadChunks(wanted)) { _, downloaded in downloaded } }
            return nodes
        }
    }

    /// The whole content of an asset in memory, verified against its content digest.
    /// Throws `chunkNotFound`, `chunkCorrupt`, or `chunkCorrupt` when the assembled content
    /// does not match.
    public func loadAsset(_ reference: AssetReference) async throws(SyncError) -> Data {
        let manifest = try await loadManifest(reference)
        var content = Data(capacity: Int(manifest.size))
        for chunk in manifest.chunks { content.append(try await downloadChunk(chunk.digest)) }
        guard SHA256Digest(hashing: content) == reference.contentDigest else {
            throw SyncError(.chunkCorrupt, "asset \(reference.contentDigest.shortHex) reassembles to different content", digest: reference.contentDigest)
        }
        return content
    }
}

import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

@Suite struct ManifestTreeTests {
    static func fakeChunks(_ count: Int, seed: UInt64) -> [ChunkRef] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in ChunkRef(digest: SHA256Digest(bytes: random.bytes(32))!, length: 1000 + Int(random.next() % 30_000)) }
    }

    static func manifest(_ chunks: [ChunkRef]) -> AssetManifest {
        AssetManifest(chunks: chunks, contentDigest: SHA256Digest(hashing: Data("content".utf8)))
    }

    /// Expands `reference` from an in-memory node store.
    static func expand(_ reference: AssetReference, _ nodes: [ManifestTree.Node]) async throws -> AssetManifest {
        let store = Dictionary(nodes.map { ($0.ref.digest, $0.bytes) }, uniquingKeysWith: { a, _ in a })
        return try await ManifestTree.expand(reference) { refs in
            let wanted = Set(refs.map(\.digest))
            return store.filter { wanted.contains($0.key) }
        }
    }

    @Test(arguments: [0, 1, 64])
    func smallManifestsStayInline(count: Int) async throws {
        let manifest = Self.manifest(Self.fakeChunks(count, seed: 1))
        let (reference, nodes) = ManifestTree.build(manifest)
        #expect(reference.depth == 0 && nodes.isEmpty && reference.entries == manifest.chunks)
        #expect(try await Self.expand(reference, nodes) == manifest)
    }

    @Test(arguments: [(65, 1), (7_000, 1), (20_000, 2)])
    func largeManifestsBuildATreeThatExpandsBack(count: Int, depth: Int) async throws {
        let manifest = Self.manifest(Self.fakeChunks(count, seed: UInt64(count)))
        let (reference, nodes) = ManifestTree.build(manifest)
        #expect(reference.depth >= depth)
        #expect(reference.entries.count <= ManifestTree.maximumRootEntries)
        #expect(reference.chunkCount == count && reference.size == manifest.size)
        #expect(nodes.allSatisfy { $0.bytes.count <= 4 + 36 * ManifestTree.maximumNodeEntries })
        #expect(try await Self.expand(reference, nodes) == manifest)
    }

    @Test func replacingOneChunkChangesOnePathOfTheTree() {
        var chunks = Self.fakeChunks(7_000, seed: 5)
        let (_, before) = ManifestTree.build(Self.manifest(chunks))
        var random = SeededRandom(seed: 6)
        for _ in 0..<20 {
            var edited = chunks
            let position = Int(random.next() % UInt64(chunks.count))
            edited[position] = ChunkRef(digest: SHA256Digest(bytes: random.bytes(32))!, length: 4242)
            let (_, after) = ManifestTree.build(Self.manifest(edited))
            let known = Set(before.map(\.ref.digest))
            let fresh = after.filter { !known.contains($0.ref.digest) }
            // The leaf holding the chunk, or two when the chunk was a leaf boundary.
            #expect(fresh.count >= 1 && fresh.count <= 2)
        }
        chunks.insert(ChunkRef(digest: SHA256Digest(bytes: random.bytes(32))!, length: 1), at: 3_500)
        let (_, inserted) = ManifestTree.build(Self.manifest(chunks))
        let known = Set(before.map(\.ref.digest))
        #expect(inserted.filter { !known.contains($0.ref.digest) }.count <= 2)
    }

    @Test func expandAsksForEachLevelOnceAndFailsOnAMissingNode() async throws {
        let manifest = Self.manifest(Self.fakeChunks(20_000, seed: 11))
        let (reference, nodes) = ManifestTree.build(manifest)
        let store = Dictionary(nodes.map { ($0.ref.digest, $0.bytes) }, uniquingKeysWith: { a, _ in a })
        var asked: [Int] = []
        let expanded = try await ManifestTree.expand(reference) { refs in
            asked.append(refs.count)
            let wanted = Set(refs.map(\.digest))
            return store.filter { wanted.contains($0.key) }
        }
        #expect(expanded == manifest)
        #expect(reference.depth == 2)
        #expect(asked.count == reference.depth, "one request per level")
        #expect(asked.reduce(0, +) == nodes.count)
        let error = await #expect(throws: SyncError.self) {
            try await ManifestTree.expand(reference) { refs in store.filter { $0.key != refs.last?.digest } }
        }
        #expect(error?.code == .chunkNotFound)
    }

    @Test func theHeldVersionsNodesLeaveOnlyTheEditedOnesToFetch() async throws {
        var chunks = Self.fakeChunks(7_000, seed: 12)
        let held = ManifestTree.nodesByDigest(of: Self.manifest(chunks))
        #expect(held.count == ManifestTree.build(Self.manifest(chunks)).nodes.count)
        var random = SeededRandom(seed: 13)
        chunks.insert(ChunkRef(digest: SHA256Digest(bytes: random.bytes(32))!, length: 7), at: 2_000)
        let (reference, nodes) = ManifestTree.build(Self.manifest(chunks))
        let store = Dictionary(nodes.map { ($0.ref.digest, $0.bytes) }, uniquingKeysWith: { a, _ in a })
        var fetched = 0
        let expanded = try await ManifestTree.expand(reference) { refs in
            var found: [SHA256Digest: Data] = [:]
            for ref in refs {
                if let bytes = held[ref.digest] { found[ref.digest] = bytes } else { found[ref.digest] = store[ref.digest]; fetched += 1 }
            }
            return found
        }
        #expect(expanded == Self.manifest(chunks))
        #expect(fetched >= 1 && fetched <= 2, "\(fetched) of \(nodes.count) nodes fetched")
        #expect(ManifestTree.nodesByDigest(of: Self.manifest(Array(chunks.prefix(64)))).isEmpty, "a short list needs no tree")
    }

    @Test func damagedNodesAreRejected() async throws {
        let manifest = Self.manifest(Self.fakeChunks(500, seed: 9))
        let (reference, nodes) = ManifestTree.build(manifest)
        let node = try #require(nodes.first)
        var damaged = node.bytes
        damaged[damaged.startIndex + 10] ^= 1
        #expect(throws: SyncError.self) { try ManifestTree.decodeNode(damaged, ref: node.ref) }
        let garbage = Data("not a node".utf8)
        let garbageRef = ChunkRef(digest: SHA256Digest(hashing: garbage), length: garbage.count)
        let error = #expect(throws: SyncError.self) { try ManifestTree.decodeNode(garbage, ref: garbageRef) }
        #expect(error?.code == .chunkCorrupt)
        // A reference whose counts disagree with its nodes is corrupt too.
        let lying = AssetReference(depth: reference.depth, entries: reference.entries, chunkCount: reference.chunkCount + 1,
                                   size: reference.size, contentDigest: reference.contentDigest)
        await #expect(throws: SyncError.self) { try await Self.expand(lying, nodes) }
    }
}

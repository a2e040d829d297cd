import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// An insertion or deletion of a few bytes changes at most two chunks, wherever it lands,
/// on seeded random data from 1 KB to 60 MB.
@Suite struct ChunkerEditLocalityTests {
    enum Edit: CustomStringConvertible {
        case insert(Int, [UInt8]), delete(Int, Int)

        var description: String {
            switch self {
            case .insert(let at, let bytes): "insert \(bytes.count) at \(at)"
            case .delete(let at, let count): "delete \(count) at \(at)"
            }
        }

        func apply(to bytes: [UInt8]) -> [UInt8] {
            var copy = bytes
            switch self {
            case .insert(let at, let new): copy.insert(contentsOf: new, at: at)
            case .delete(let at, let count): copy.removeSubrange(at..<min(at + count, copy.count))
            }
            return copy
        }
    }

    static func chunks(_ bytes: [UInt8]) -> [ChunkRef] {
        bytes.withUnsafeBytes { AssetChunker().chunk($0).chunks }
    }

    /// (size, number of edits): more edits where chunking is cheap.
    @Test(arguments: [(1_000, 40), (10_000, 40), (100_000, 40), (1_000_000, 30), (8_000_000, 12), (60_000_000, 4)])
    func smallEditsChangeAtMostTwoChunks(size: Int, edits: Int) {
        var random = SeededRandom(seed: UInt64(size) &* 31 &+ 7)
        let original = random.bytes(size)
        let before = Self.chunks(original)
        let known = Set(before.map(\.digest))
        for index in 0..<edits {
            let position = Int(random.next() % UInt64(size))
            let length = 1 + Int(random.next() % 8)
            let edit: Edit = index.isMultiple(of: 2) ? .insert(position, random.bytes(length)) : .delete(position, length)
            let after = Self.chunks(edit.apply(to: original))
            let fresh = after.filter { !known.contains($0.digest) }
            #expect(fresh.count <= 2, "\(edit) in \(size) bytes made \(fresh.count) new chunks")
            // Everything outside the new chunks is the old chunks, in order.
            let kept = after.filter { known.contains($0.digest) }
            #expect(kept.count >= before.count - 2, "\(edit) lost \(before.count - kept.count) old chunks")
        }
    }
}

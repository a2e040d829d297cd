@testable import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// `Record.validate` skips encoding a record whose size bound is far below the limit: the
/// bound must never be less than what the compact form takes.
@Suite struct RecordSizeBoundTests {
    @Test func theBoundIsNeverBelowTheCompactSize() {
        var random = SeededRandom(seed: 41)
        for _ in 0..<2_000 {
            var record = CompactCodingTests.randomRecord(&random)
            if Bool.random(using: &random) { record.lastEditorName = String(repeating: "é", count: Int.random(in: 0...127, using: &random)) }
            if record.type == .symlink, Bool.random(using: &random) {
                record.symlinkTarget = String(repeating: "目/", count: Int.random(in: 1...1_000, using: &random))
            }
            let size = CompactCoding.encode(record).count
            #expect(record.compactSizeBound >= size, "bound \(record.compactSizeBound) below \(size) for \(record)")
        }
    }

    @Test func aRecordOverTheLimitIsStillRefused() {
        var random = SeededRandom(seed: 3)
        var record = CompactCodingTests.randomRecord(&random)
        record.type = .symlink
        record.contentDigest = nil
        record.asset = nil
        record.size = 3
        record.symlinkTarget = String(repeating: "x", count: Record.maximumEncodedSize + 1)
        let error = #expect(throws: SyncError.self) { try record.validate() }
        #expect(error?.code == .limitExceeded)
    }
}

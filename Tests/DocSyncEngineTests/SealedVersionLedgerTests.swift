import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

@testable import DocSyncEngine

/// The versions an encrypted folder's index keeps per record (SPEC §13): they only grow, the
/// next save seals one more than any seen or sent, and they survive reopening the index.
@Suite struct SealedVersionLedgerTests {
    @Test func versionsOnlyGrowAndTheNextSaveSealsOneMore() throws {
        let directory = try TemporaryDirectory("docsync-ledger")
        let url = directory.url.appendingPathComponent("index.sqlite")
        let ledger = SealedVersionLedger(index: try LocalIndex(url: url))
        #expect(try ledger.seen(["a", "b"]).isEmpty)
        try ledger.note(["a": 5, "b": 2])
        try ledger.note(["a": 3])  // an older one seen later changes nothing
        #expect(try ledger.seen(["a", "b", "c"]) == ["a": 5, "b": 2])
        #expect(try ledger.nextVersions(["a", "c"]) == ["a": 6, "c": 1])
        // Noted as sent before they were handed out: the next save seals yet another.
        #expect(try ledger.nextVersions(["a"]) == ["a": 7])
        let reopened = SealedVersionLedger(index: try LocalIndex(url: url))
        #expect(try reopened.seen(["a", "b", "c"]) == ["a": 7, "b": 2, "c": 1])
        // The column holds at most Int64.max: a version past it is kept as that, and the
        // next one never overflows.
        try reopened.note(["d": UInt64.max])
        #expect(try reopened.seen(["d"]) == ["d": UInt64(Int64.max)])
        #expect(SealedVersionLedger.after(UInt64.max) == UInt64(Int64.max))
    }
}

import DocSyncCore
import Testing

/// Decision table: a path named for `recover` with nothing in Recently Deleted is no such
/// item, told apart by what the device knows (SPEC §4a, README exit 4).
@Suite struct RecoverCheckTests {
    typealias Facts = RecoverCheck.Facts

    @Test(arguments: [
        (Facts(inRecentlyDeleted: true), RecoverCheck.Verdict.recoverable),
        (Facts(inRecentlyDeleted: true, deletedCopyKeptHere: true, livesHere: true), .recoverable),
        (Facts(inRecentlyDeleted: false, deletedCopyKeptHere: true), .purged),
        (Facts(inRecentlyDeleted: false, deletedCopyKeptHere: true, livesHere: true), .purged),
        (Facts(inRecentlyDeleted: false, livesHere: true), .notDeleted),
        (Facts(inRecentlyDeleted: false), .noSuchItem),
    ])
    func verdict(_ facts: Facts, _ expected: RecoverCheck.Verdict) {
        #expect(RecoverCheck.verdict(facts) == expected)
    }

    @Test func messagesNameThePathAndWhy() {
        #expect(RecoverCheck.Verdict.recoverable.message(for: "Docs/a.txt") == nil)
        #expect(RecoverCheck.Verdict.purged.message(for: "Docs/a.txt")?.contains("Docs/a.txt was deleted and is no longer in Recently Deleted (purged") == true)
        #expect(RecoverCheck.Verdict.purged.message(for: "Docs/a.txt")?.contains("docs-status versions") == true)
        #expect(RecoverCheck.Verdict.notDeleted.message(for: "Docs/a.txt")?.hasPrefix("Docs/a.txt is not deleted") == true)
        #expect(RecoverCheck.Verdict.noSuchItem.message(for: "Docs/a.txt") == "no such item in Recently Deleted: Docs/a.txt")
    }
}

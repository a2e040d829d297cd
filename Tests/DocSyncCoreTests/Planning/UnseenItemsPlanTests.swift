import DocSyncCore
import Testing

/// Decision table: what becomes of the items a fetch from scratch did not account for —
/// an acknowledged item's record deleted elsewhere or forgotten by the server, and a joining
/// device's new item that is a deletion arriving late (SPEC §4a).
@Suite struct UnseenItemsPlanTests {
    typealias F = Fixture
    typealias Item = UnseenItemsPlanner.Item

    /// An acknowledged item of record `record` (as the server last had it).
    static func known(_ record: Record) -> Item { Item(recordName: record.id.recordName, acknowledged: true, observed: record) }

    /// A joining device's new item `letter` as it would be sent: `record`'s fields under its own name.
    static func new(_ letter: String, _ record: Record, digestKnown: Bool = true) -> Item {
        var observed = Record(id: RecordID(zone: F.zone, recordName: F.name(letter)), type: record.type, path: record.path, size: record.size,
                              modified: F.time(99), mode: 0o600, contentDigest: digestKnown ? record.contentDigest : nil,
                              asset: digestKnown ? record.asset : nil, symlinkTarget: record.symlinkTarget, lastModifiedBy: F.here)
        observed.changeTag = nil
        return Item(recordName: F.name(letter), acknowledged: false, observed: observed)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var items: [Item]
        var recentlyDeleted: [Record]?
        var toRead: [String] = []
        var expected: [UnseenItemsPlanner.Decision]
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        let gone = F.doc("A", "gone.txt", "deleted elsewhere")
        let kept = F.doc("B", "kept.txt", "forgotten by the server")
        let trip = F.folder("C", "trip")
        let photo = F.doc("D", "trip/p1.jpg", "photo")
        let link = F.link("E", "link", "caf\u{E9}")
        let edited = F.doc("X", "gone.txt", "edited since")
        let older = F.doc("G", "gone.txt", "an older life of the path")
        return [
            Case(name: "acknowledged, deleted elsewhere: a remote deletion", items: [known(gone)], recentlyDeleted: [gone],
                 expected: [.deletedElsewhere(recordName: gone.id.recordName)]),
            Case(name: "acknowledged, not in Recently Deleted: sent again", items: [known(kept)], recentlyDeleted: [gone],
                 expected: [.sendAgain(recordName: kept.id.recordName)]),
            Case(name: "acknowledged, and the backend keeps no Recently Deleted: sent again", items: [known(gone)], recentlyDeleted: nil,
                 expected: [.sendAgain(recordName: gone.id.recordName)]),
            Case(name: "joining with a deleted file's last version: the deletion arrived late", items: [new("N", gone)], recentlyDeleted: [gone],
                 expected: [.deletionArrivedLate(recordName: F.name("N"), deleted: gone)]),
            Case(name: "joining with a deleted file edited since: an edit, sent", items: [new("N", edited)], recentlyDeleted: [gone],
                 expected: []),
            Case(name: "joining with a deleted file's content at another path: new, sent",
                 items: [new("N", F.doc("Y", "elsewhere.txt", "deleted elsewhere"))], recentlyDeleted: [gone], expected: []),
            Case(name: "joining with a folder where a deleted file was: new, sent", items: [new("N", F.folder("Y", "gone.txt"))], recentlyDeleted: [gone],
                 expected: []),
            Case(name: "joining, digest not read yet: read first, nothing decided without it",
                 items: [new("N", gone, digestKnown: false)], recentlyDeleted: [gone], toRead: [F.name("N")], expected: []),
            Case(name: "joining, a file of another size where a deleted one was is not read",
                 items: [new("N", F.doc("Y", "gone.txt", "much longer than what was deleted"), digestKnown: false)], recentlyDeleted: [gone], expected: []),
            Case(name: "joining, and the backend keeps no Recently Deleted: new, sent", items: [new("N", gone)], recentlyDeleted: nil, expected: []),
            Case(name: "joining with a deleted folder and its file: the file first, then the folder",
                 items: [new("N", trip), new("P", photo)], recentlyDeleted: [trip, photo],
                 expected: [.deletionArrivedLate(recordName: F.name("P"), deleted: photo), .deletionArrivedLate(recordName: F.name("N"), deleted: trip)]),
            Case(name: "joining with a deleted link's target: the deletion arrived late", items: [new("N", link)], recentlyDeleted: [link],
                 expected: [.deletionArrivedLate(recordName: F.name("N"), deleted: link)]),
            Case(name: "joining with a link whose target differs only in normalization: an edit",
                 items: [new("N", F.link("Y", "link", "cafe\u{301}"))], recentlyDeleted: [link], expected: []),
            Case(name: "two deleted lives of one path: the one whose content it is",
                 items: [new("N", older)], recentlyDeleted: [gone, older],
                 expected: [.deletionArrivedLate(recordName: F.name("N"), deleted: older)]),
            Case(name: "a deleted record is taken once",
                 items: [new("N", gone), new("P", gone)], recentlyDeleted: [gone],
                 expected: [.deletionArrivedLate(recordName: F.name("N"), deleted: gone)]),
            Case(name: "a path that differs only in normalization is another path",
                 items: [new("N", F.doc("Y", "cafe\u{301}.txt", "same"))], recentlyDeleted: [F.doc("Z", "caf\u{E9}.txt", "same")], expected: []),
            Case(name: "deletions deepest first, then what is sent again, in path order",
                 items: [known(kept), known(trip), known(photo), known(F.doc("H", "a.txt", "forgotten too"))], recentlyDeleted: [trip, photo],
                 expected: [.deletedElsewhere(recordName: photo.id.recordName), .deletedElsewhere(recordName: trip.id.recordName),
                            .sendAgain(recordName: F.name("H")), .sendAgain(recordName: kept.id.recordName)]),
        ]
    }()

    @Test(arguments: cases) func plan(_ row: Case) {
        #expect(UnseenItemsPlanner.contentToRead(row.items, recentlyDeleted: row.recentlyDeleted ?? []) == row.toRead, "\(row.name)")
        #expect(UnseenItemsPlanner.plan(row.items, recentlyDeleted: row.recentlyDeleted) == row.expected, "\(row.name)")
    }
}

import DocSyncCore
import Testing

/// Decision tables: saves sent without an answer, settled by what the server says later —
/// a record that comes back, a deletion, a create about to be retried (SPEC §5, lost answers).
@Suite struct UncertainSavesPlanTests {
    typealias F = Fixture
    typealias Item = UncertainSavesPlanner.Item
    typealias Decision = UncertainSavesPlanner.Decision

    static let a = F.name("A")
    /// The version of A this device sent (based on tag t1) and never heard back about.
    static let sent = F.doc("A", "a.txt", "mine", at: 5, by: F.here)
    /// `sent` as the store keeps it, had it landed.
    static let landed = retagged(sent, "t2")
    /// The version before it, which the server acknowledged.
    static let older = F.doc("A", "a.txt", "before", at: 1)
    /// A create of A (no tag): the record was new when it was sent.
    static let create = F.doc("A", "a.txt", "mine", at: 5, tag: nil, by: F.here)
    /// Another device's version of A, on top of whatever it had.
    static let theirs = F.doc("A", "a.txt", "theirs", at: 9, tag: "t3")

    static func retagged(_ record: Record, _ tag: String?) -> Record {
        var copy = record
        copy.changeTag = tag.map(ChangeTag.init)
        return copy
    }

    static func moved(_ record: Record, to path: RelativePath) -> Record {
        var copy = record
        copy.path = path
        return copy
    }

    struct AnswerCase: Sendable, CustomTestStringConvertible {
        var name: String
        var changed: [Record] = []
        var deleted: [String] = []
        var deletedVersions: [String: Record] = [:]
        var remembered: [String: [Record]]
        var items: [String: Item]
        var expected: [Decision]
        var own: Set<String> = []
        var testDescription: String { name }
    }

    static let answerCases: [AnswerCase] = [
        AnswerCase(name: "a record that comes back as a version sent: this device's own save, acknowledged",
                   changed: [landed], remembered: [a: [sent]], items: [a: Item(change: .edited, observed: sent, acknowledged: older)],
                   expected: [.forget(recordName: a), .acknowledge(recordName: a, as: landed)], own: [a]),
        AnswerCase(name: "the earlier of two unanswered saves is still this device's own",
                   changed: [landed], remembered: [a: [sent, F.doc("A", "a.txt", "mine, later", at: 7, by: F.here)]],
                   items: [a: Item(change: .edited, observed: sent, acknowledged: older)],
                   expected: [.forget(recordName: a), .acknowledge(recordName: a, as: landed)], own: [a]),
        AnswerCase(name: "a record unlike every version sent: another device's change, applied as such",
                   changed: [theirs], remembered: [a: [sent]], items: [a: Item(change: .edited, observed: sent, acknowledged: older)],
                   expected: [.forget(recordName: a)]),
        AnswerCase(name: "own save of an item deleted here since, its row gone: the deletion is made again",
                   changed: [landed], remembered: [a: [sent]], items: [:],
                   expected: [.forget(recordName: a), .sendDeletion(of: landed)], own: [a]),
        AnswerCase(name: "deleted here, and another device only moved it with its folder since: still own",
                   changed: [moved(landed, to: "moved/a.txt")], remembered: [a: [sent]],
                   items: [a: Item(change: .deleted, observed: sent, acknowledged: older)],
                   expected: [.forget(recordName: a), .acknowledge(recordName: a, as: moved(landed, to: "moved/a.txt"))], own: [a]),
        AnswerCase(name: "not deleted here, and another device moved it: its move is a change made elsewhere",
                   changed: [moved(landed, to: "moved/a.txt")], remembered: [a: [sent]],
                   items: [a: Item(change: .edited, observed: sent, acknowledged: older)],
                   expected: [.forget(recordName: a)]),
        AnswerCase(name: "a create that landed, edited elsewhere on top, unchanged here: it settles on the create",
                   changed: [theirs], remembered: [a: [create]], items: [a: Item(change: .edited, observed: create)],
                   expected: [.forget(recordName: a), .takeAsAncestor(recordName: a, landed: create, settle: true)]),
        AnswerCase(name: "a create that landed, edited elsewhere on top, and changed here since: merged against it",
                   changed: [theirs], remembered: [a: [create]], items: [a: Item(change: .edited, observed: F.doc("A", "a.txt", "mine, edited", at: 8, tag: nil, by: F.here))],
                   expected: [.forget(recordName: a), .takeAsAncestor(recordName: a, landed: create, settle: false)]),
        AnswerCase(name: "a create that landed, while the item's content is not read yet: not taken as unchanged",
                   changed: [theirs], remembered: [a: [create]], items: [a: Item(change: .edited, contentRead: false, observed: create)],
                   expected: [.forget(recordName: a), .takeAsAncestor(recordName: a, landed: create, settle: false)]),
        AnswerCase(name: "two unanswered creates: which one landed is unknown, nothing is taken",
                   changed: [theirs], remembered: [a: [create, F.doc("A", "a.txt", "mine, later", at: 7, tag: nil, by: F.here)]],
                   items: [a: Item(change: .edited, observed: create)], expected: [.forget(recordName: a)]),
        AnswerCase(name: "deleted by a device that had the save: the save is the ancestor, and the deletion wins",
                   deleted: [a], deletedVersions: [a: landed], remembered: [a: [sent]],
                   items: [a: Item(change: .edited, observed: sent, acknowledged: older)],
                   expected: [.forget(recordName: a), .takeAsAncestor(recordName: a, landed: landed, settle: true)]),
        AnswerCase(name: "deleted elsewhere, its last version not one sent: forgotten, the deletion applies as usual",
                   deleted: [a], deletedVersions: [a: theirs], remembered: [a: [sent]],
                   items: [a: Item(change: .edited, observed: sent, acknowledged: older)], expected: [.forget(recordName: a)]),
        AnswerCase(name: "deleted elsewhere, and no Recently Deleted to tell: forgotten",
                   deleted: [a], remembered: [a: [sent]], items: [a: Item(change: .edited, observed: sent, acknowledged: older)],
                   expected: [.forget(recordName: a)]),
        AnswerCase(name: "deleted elsewhere, and the item already has that version: forgotten",
                   deleted: [a], deletedVersions: [a: landed], remembered: [a: [sent]],
                   items: [a: Item(change: .none, observed: sent, acknowledged: landed)], expected: [.forget(recordName: a)]),
        AnswerCase(name: "deleted here, its row gone, and another device only moved it since: the deletion is made against the moved record",
                   changed: [moved(landed, to: "moved/a.txt")], remembered: [a: [sent]], items: [:],
                   expected: [.forget(recordName: a), .sendDeletion(of: moved(landed, to: "moved/a.txt"))], own: [a]),
        AnswerCase(name: "deleted here, and another device edited it since: its change, applied as such",
                   changed: [theirs], remembered: [a: [sent]], items: [a: Item(change: .deleted, observed: sent, acknowledged: older)],
                   expected: [.forget(recordName: a)]),
        AnswerCase(name: "one unanswered save that was no create (it had a tag), unlike what came: nothing taken",
                   changed: [theirs], remembered: [a: [sent]], items: [a: Item(change: .edited, observed: sent)],
                   expected: [.forget(recordName: a)]),
        AnswerCase(name: "a create, and the item acknowledged since: nothing taken",
                   changed: [theirs], remembered: [a: [create]], items: [a: Item(change: .edited, observed: create, acknowledged: older)],
                   expected: [.forget(recordName: a)]),
        AnswerCase(name: "a create that landed, edited elsewhere, and deleted here since: taken as the item's ancestor, not settled",
                   changed: [theirs], remembered: [a: [create]], items: [a: Item(change: .deleted, observed: create)],
                   expected: [.forget(recordName: a), .takeAsAncestor(recordName: a, landed: create, settle: false)]),
        AnswerCase(name: "deleted by a device that had the save, and changed here since: the save is the ancestor, the edit stays to send",
                   deleted: [a], deletedVersions: [a: landed], remembered: [a: [sent]],
                   items: [a: Item(change: .edited, observed: F.doc("A", "a.txt", "mine, edited", at: 8, by: F.here), acknowledged: older)],
                   expected: [.forget(recordName: a), .takeAsAncestor(recordName: a, landed: landed, settle: false)]),
        AnswerCase(name: "deleted by a device that had the save, and the item's row is gone: only forgotten",
                   deleted: [a], deletedVersions: [a: landed], remembered: [a: [sent]], items: [:],
                   expected: [.forget(recordName: a)]),
        AnswerCase(name: "a deletion listed twice: the save is taken once",
                   deleted: [a, a], deletedVersions: [a: landed], remembered: [a: [sent]],
                   items: [a: Item(change: .edited, observed: sent, acknowledged: older)],
                   expected: [.forget(recordName: a), .takeAsAncestor(recordName: a, landed: landed, settle: true), .forget(recordName: a)]),
        AnswerCase(name: "an own save of a gone row listed twice: the deletion is made once, then acknowledged",
                   changed: [landed, landed], remembered: [a: [sent]], items: [:],
                   expected: [.forget(recordName: a), .sendDeletion(of: landed), .forget(recordName: a), .acknowledge(recordName: a, as: landed)],
                   own: [a]),
        AnswerCase(name: "deletions are answered before saves, each in the order given",
                   changed: [landed], deleted: [F.name("B")], deletedVersions: [F.name("B"): F.doc("B", "b.txt", "b", tag: "t2", by: F.here)],
                   remembered: [a: [sent], F.name("B"): [F.doc("B", "b.txt", "b", by: F.here)]],
                   items: [a: Item(change: .edited, observed: sent, acknowledged: older),
                           F.name("B"): Item(change: .edited, observed: F.doc("B", "b.txt", "b", by: F.here))],
                   expected: [.forget(recordName: F.name("B")),
                              .takeAsAncestor(recordName: F.name("B"), landed: F.doc("B", "b.txt", "b", tag: "t2", by: F.here), settle: true),
                              .forget(recordName: a), .acknowledge(recordName: a, as: landed)], own: [a]),
        AnswerCase(name: "nothing remembered of the record: nothing to decide",
                   changed: [landed], deleted: [a], remembered: [:], items: [a: Item(change: .edited, observed: sent, acknowledged: older)],
                   expected: []),
    ]

    @Test(arguments: answerCases) func answer(_ row: AnswerCase) {
        let answer = UncertainSavesPlanner.answer(changed: row.changed, deleted: row.deleted, deletedVersions: row.deletedVersions,
                                                  remembered: row.remembered, items: row.items)
        #expect(answer.decisions == row.expected, "\(row.name)")
        #expect(answer.own == row.own, "\(row.name)")
    }

    struct RetryCase: Sendable, CustomTestStringConvertible {
        var name: String
        var item: Item
        var remembered: [Record]? = [create]
        var live = false
        var recentlyDeleted = true
        var checked: Bool
        var dropped: Bool
        var testDescription: String { name }
    }

    static let retryCases: [RetryCase] = [
        RetryCase(name: "landed, then deleted elsewhere, unchanged here: not created again", item: Item(change: .edited, observed: create),
                  checked: true, dropped: true),
        RetryCase(name: "the store has the record live: sent", item: Item(change: .edited, observed: create), live: true,
                  checked: true, dropped: false),
        RetryCase(name: "never landed (not in Recently Deleted): sent", item: Item(change: .edited, observed: create), recentlyDeleted: false,
                  checked: true, dropped: false),
        RetryCase(name: "deleted elsewhere, but changed here since: the edit wins, sent",
                  item: Item(change: .edited, observed: F.doc("A", "a.txt", "mine, edited", at: 8, tag: nil, by: F.here)),
                  checked: true, dropped: false),
        RetryCase(name: "deleted elsewhere, not read since a change that left its fields as sent: not created again",
                  item: Item(change: .edited, contentRead: false, observed: create), checked: true, dropped: true),
        RetryCase(name: "the later of two versions sent, landed and deleted elsewhere: not created again",
                  item: Item(change: .edited, observed: F.doc("A", "a.txt", "mine, later", at: 7, tag: nil, by: F.here)),
                  remembered: [create, F.doc("A", "a.txt", "mine, later", at: 7, tag: nil, by: F.here)], checked: true, dropped: true),
        RetryCase(name: "a link, landed and deleted elsewhere: not created again",
                  item: Item(change: .edited, observed: F.link("A", "a", "target", tag: nil, by: F.here)),
                  remembered: [F.link("A", "a", "target", tag: nil, by: F.here)], checked: true, dropped: true),
        RetryCase(name: "a folder: sent", item: Item(change: .edited, observed: F.folder("A", "a.txt", tag: nil, by: F.here)),
                  remembered: [F.folder("A", "a.txt", tag: nil, by: F.here)], checked: true, dropped: false),
        RetryCase(name: "acknowledged before (not a create): not checked", item: Item(change: .edited, observed: sent, acknowledged: older),
                  remembered: [sent], checked: false, dropped: false),
        RetryCase(name: "a deletion to send, not a create: not checked", item: Item(change: .deleted, observed: create),
                  checked: false, dropped: false),
        RetryCase(name: "nothing to send: not checked", item: Item(change: .none, observed: create),
                  checked: false, dropped: false),
        RetryCase(name: "nothing remembered: not checked", item: Item(change: .edited, observed: create), remembered: nil,
                  checked: false, dropped: false),
    ]

    @Test(arguments: retryCases) func retriedCreates(_ row: RetryCase) {
        let items = [Self.a: row.item]
        let remembered = row.remembered.map { [Self.a: $0] } ?? [:]
        let checked = UncertainSavesPlanner.createsToCheck(items, remembered: remembered)
        #expect(checked == (row.checked ? [Self.a] : []), "\(row.name)")
        let dropped = UncertainSavesPlanner.createsDeletedElsewhere(checked, items: items, remembered: remembered,
                                                                    live: row.live ? [Self.a] : [], recentlyDeleted: row.recentlyDeleted ? [Self.a] : [])
        #expect(dropped == (row.dropped ? [Self.a] : []), "\(row.name)")
    }

    /// The items as they are when the drop is decided, after the round trips to the store:
    /// each must still be the create that was checked.
    struct LaterCase: Sendable, CustomTestStringConvertible {
        var name: String
        var item: Item?
        var dropped: Bool
        var testDescription: String { name }
    }

    static let laterCases: [LaterCase] = [
        LaterCase(name: "still the create sent: not created again", item: Item(change: .edited, observed: create), dropped: true),
        LaterCase(name: "its row gone meanwhile: nothing to drop", item: nil, dropped: false),
        LaterCase(name: "acknowledged meanwhile: sent", item: Item(change: .edited, observed: create, acknowledged: landed), dropped: false),
        LaterCase(name: "settled meanwhile (nothing to send): left alone", item: Item(change: .none, observed: create), dropped: false),
        LaterCase(name: "deleted here meanwhile: left alone", item: Item(change: .deleted, observed: create), dropped: false),
        LaterCase(name: "edited meanwhile: sent", item: Item(change: .edited, observed: F.doc("A", "a.txt", "mine, edited", at: 8, tag: nil, by: F.here)),
                  dropped: false),
    ]

    @Test(arguments: laterCases) func createsChangedMeanwhile(_ row: LaterCase) {
        let items = row.item.map { [Self.a: $0] } ?? [:]
        let dropped = UncertainSavesPlanner.createsDeletedElsewhere([Self.a], items: items, remembered: [Self.a: [Self.create]],
                                                                    live: [], recentlyDeleted: [Self.a])
        #expect(dropped == (row.item != nil && row.dropped ? [Self.a] : []), "\(row.name)")
    }

    @Test func createsAreCheckedAndDroppedInRecordNameOrder() {
        let names = ["C", "A", "B"].map(F.name)
        let creates = Dictionary(uniqueKeysWithValues: ["C", "A", "B"].map { letter in
            (F.name(letter), Item(change: .edited, observed: F.doc(letter, "\(letter).txt", letter, tag: nil, by: F.here)))
        })
        let remembered = creates.mapValues { [$0.observed] }
        let checked = UncertainSavesPlanner.createsToCheck(creates, remembered: remembered)
        #expect(checked == names.sorted())
        let dropped = UncertainSavesPlanner.createsDeletedElsewhere(names, items: creates, remembered: remembered,
                                                                    live: [F.name("B")], recentlyDeleted: Set(names))
        #expect(dropped == [F.name("A"), F.name("C")])
    }
}

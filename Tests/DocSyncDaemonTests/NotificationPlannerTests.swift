import DocSyncCore
import DocSyncDaemon
import Foundation
import Testing

/// `NotificationPlanner`: which desktop notifications two snapshots of the folders' statuses
/// call for (SPEC §15) — one per situation, when it starts, with a count.
@Suite struct NotificationPlannerTests {
    // MARK: statuses

    static let since = Date(timeIntervalSince1970: 1_800_000_000)

    static func folder(
        _ id: String = "Documents", path: String? = nil, state: FolderState = .idle, message: String? = nil,
        conflicts: Int = 0, problems: [ItemProblem] = [], held: HeldDeletions? = nil
    ) -> FolderStatus {
        FolderStatus(id: id, path: path ?? "/home/ada/\(id)", state: state, message: message, items: 200,
                     conflicts: conflicts, problems: problems, held: held)
    }

    static func held(_ reason: FolderHold.Reason, _ id: String = "Documents") -> FolderStatus {
        folder(id, state: .held, held: HeldDeletions(reason: reason.rawValue, message: reason.explanation(root: "/home/ada/\(id)", items: 200),
                                                    since: since, items: 200))
    }

    static func braked(_ deletions: Int, _ id: String = "Documents") -> FolderStatus {
        folder(id, state: .deletionsHeld, held: HeldDeletions(
            reason: HeldDeletions.brake, message: "\(deletions) local deletions held by the mass-delete brake", since: since,
            items: deletions, ofItems: 200))
    }

    static func tooLarge(_ path: String) -> ItemProblem {
        ItemProblem(path: path, message: "file is 60 MB, over max_file_size (50 MB): \(FolderStatus.keptHereTooLarge)")
    }

    static func fullStorage(_ id: String) -> FolderStatus {
        folder(id, state: .error, message: FolderStatus.storageFull(AccountQuota(usedBytes: 1_200_000_000, quotaBytes: 1_000_000_000)))
    }

    // MARK: the table

    /// What a notification says, without its body.
    struct Expected: Hashable, CustomStringConvertible {
        var key: String
        var summary: String
        var urgency: DesktopNotification.Urgency
        var replacesEarlier = false

        init(_ key: String, _ summary: String, _ urgency: DesktopNotification.Urgency, replacesEarlier: Bool = false) {
            self.key = key
            self.summary = summary
            self.urgency = urgency
            self.replacesEarlier = replacesEarlier
        }

        init(_ notification: DesktopNotification) {
            self.init(notification.key, notification.summary, notification.urgency, replacesEarlier: notification.replacesEarlier)
        }

        var description: String { "\(key): \(summary) (\(urgency)\(replacesEarlier ? ", replacing" : ""))" }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var previous: [FolderStatus]
        var current: [FolderStatus]
        var expected: [Expected]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "nothing needs a person", previous: [], current: [folder(), folder("Pictures")], expected: []),
        Case(name: "a folder whose root went missing", previous: [folder()], current: [held(.rootMissing)],
             expected: [Expected("folderHeld|Documents|rootMissing", "Documents is held: the folder is missing", .critical)]),
        Case(name: "a held folder already notified", previous: [held(.rootMissing)], current: [held(.rootMissing)], expected: []),
        Case(name: "a held folder that is back", previous: [held(.rootMissing)], current: [folder()], expected: []),
        Case(name: "held for another reason is another situation", previous: [held(.rootMissing)], current: [held(.markerMissing)],
             expected: [Expected("folderHeld|Documents|markerMissing", "Documents is held: it is not the folder that was synced", .critical)]),
        Case(name: "a root that is not a directory", previous: [], current: [held(.rootNotADirectory)],
             expected: [Expected("folderHeld|Documents|rootNotADirectory", "Documents is held: it is not a folder", .critical)]),
        Case(name: "deletions held by the brake", previous: [folder()], current: [braked(150)],
             expected: [Expected("deletionsHeld|Documents|", "150 deletions held in Documents", .normal)]),
        Case(name: "one deletion held", previous: [folder()], current: [braked(1)],
             expected: [Expected("deletionsHeld|Documents|", "1 deletion held in Documents", .normal)]),
        Case(name: "more deletions held replace the notification", previous: [braked(150)], current: [braked(400)],
             expected: [Expected("deletionsHeld|Documents|", "400 deletions held in Documents", .normal, replacesEarlier: true)]),
        Case(name: "fewer deletions held say nothing", previous: [braked(400)], current: [braked(150)], expected: []),
        Case(name: "conflicts kept as copies, one notification with their count", previous: [folder()], current: [folder(conflicts: 3)],
             expected: [Expected("conflictCopies|Documents|", "3 conflicts kept as copies in Documents", .normal)]),
        Case(name: "one conflict", previous: [folder()], current: [folder(conflicts: 1)],
             expected: [Expected("conflictCopies|Documents|", "1 conflict kept as a copy in Documents", .normal)]),
        Case(name: "the same conflicts", previous: [folder(conflicts: 3)], current: [folder(conflicts: 3)], expected: []),
        Case(name: "some conflicts settled", previous: [folder(conflicts: 3)], current: [folder(conflicts: 2)], expected: []),
        Case(name: "a new conflict beside unsettled ones", previous: [folder(conflicts: 2)], current: [folder(conflicts: 3)],
             expected: [Expected("conflictCopies|Documents|", "3 conflicts kept as copies in Documents", .normal, replacesEarlier: true)]),
        Case(name: "one file too large", previous: [folder()], current: [folder(problems: [tooLarge("videos/holiday.mov")])],
             expected: [Expected("fileTooLarge|Documents|", "holiday.mov is too large to sync", .normal)]),
        Case(name: "five files too large", previous: [],
             current: [folder(problems: ["a.iso", "b.iso", "c.iso", "d.iso", "e.iso"].map(tooLarge) + [ItemProblem(path: "x", message: "cannot read")])],
             expected: [Expected("fileTooLarge|Documents|", "5 files too large to sync in Documents", .normal)]),
        Case(name: "other per-file problems are not notified", previous: [],
             current: [folder(problems: [ItemProblem(path: "a", message: "cannot be examined: EACCES"),
                                         ItemProblem(path: "b", message: FolderStatus.notSharedReadOnly)])], expected: []),
        Case(name: "storage full in every folder is one notification", previous: [folder(), folder("Pictures")],
             current: [fullStorage("Documents"), fullStorage("Pictures")],
             expected: [Expected("storageFull||", "Storage full: uploads paused", .critical)]),
        Case(name: "the backend's disk full", previous: [],
             current: [folder(state: .error, message: FolderStatus.storageFull(nil))],
             expected: [Expected("storageFull||", "Storage full: uploads paused", .critical)]),
        Case(name: "storage still full", previous: [fullStorage("Documents")], current: [fullStorage("Documents")], expected: []),
        Case(name: "a refused sign-in is one notification for the account", previous: [],
             current: ["Documents", "Pictures", "Music"].map { folder($0, state: .error, message: FolderStatus.notAuthenticated) },
             expected: [Expected("signInRefused||", "Sign-in refused: nothing syncs", .critical)]),
        Case(name: "situations of two folders", previous: [folder(), folder("Pictures")],
             current: [folder(conflicts: 2), held(.rootMissing, "Pictures")],
             expected: [Expected("conflictCopies|Documents|", "2 conflicts kept as copies in Documents", .normal),
                        Expected("folderHeld|Pictures|rootMissing", "Pictures is held: the folder is missing", .critical)]),
        Case(name: "at start, everything that needs a person, the account's first", previous: [],
             current: [folder(state: .error, message: FolderStatus.notAuthenticated, conflicts: 4, problems: [tooLarge("big.bin")])],
             expected: [Expected("signInRefused||", "Sign-in refused: nothing syncs", .critical),
                        Expected("conflictCopies|Documents|", "4 conflicts kept as copies in Documents", .normal),
                        Expected("fileTooLarge|Documents|", "big.bin is too large to sync", .normal)]),
        Case(name: "a share is named by its directory", previous: [],
             current: [folder("alice/Taxes", path: "/home/ada/Taxes 2026", conflicts: 1)],
             expected: [Expected("conflictCopies|alice/Taxes|", "1 conflict kept as a copy in Taxes 2026", .normal)]),
        Case(name: "a shared folder whose share does not answer", previous: [],
             current: [folder("alice/Taxes", path: "/home/ada/Taxes", state: .held, held: HeldDeletions(
                 reason: HeldDeletions.shareUnavailable, message: "the share alice/Taxes does not answer", since: since, items: 3))],
             expected: [Expected("folderHeld|alice/Taxes|shareUnavailable", "Taxes is held: the share does not answer", .critical)]),
        Case(name: "a folder gone from the daemon", previous: [held(.rootMissing), folder("Pictures", conflicts: 2)],
             current: [folder("Pictures", conflicts: 2)], expected: []),
    ]

    @Test(arguments: cases)
    func plan(_ testCase: Case) {
        let planned = NotificationPlanner.plan(previous: testCase.previous, current: testCase.current)
        #expect(planned.map(Expected.init) == testCase.expected)
    }

    // MARK: sequences and bodies

    /// A situation that persists is notified once; one that ends and starts again, again.
    @Test func aSituationIsNotifiedWhenItStartsAndAgainAfterItEnded() {
        let snapshots: [[FolderStatus]] = [
            [Self.folder()], [Self.held(.rootMissing)], [Self.held(.rootMissing)], [Self.held(.rootMissing)],
            [Self.folder()], [Self.folder()], [Self.held(.rootMissing)], [Self.held(.rootMissing)],
        ]
        var previous: [FolderStatus] = []
        var counts: [Int] = []
        for current in snapshots {
            counts.append(NotificationPlanner.plan(previous: previous, current: current).count)
            previous = current
        }
        #expect(counts == [0, 1, 0, 0, 0, 0, 1, 0])
    }

    @Test func theBodySaysWhatIsAtStakeAndWhatToDo() throws {
        let held = try #require(NotificationPlanner.plan(previous: [], current: [Self.held(.rootMissing)]).first)
        #expect(held.body == FolderHold.Reason.rootMissing.explanation(root: "/home/ada/Documents", items: 200))

        let conflicts = try #require(NotificationPlanner.plan(previous: [], current: [Self.folder(conflicts: 3)]).first)
        #expect(conflicts.body.contains("docs-status conflicts") && conflicts.body.contains("docs-status resolve"), "\(conflicts.body)")

        let one = try #require(NotificationPlanner.plan(previous: [], current: [Self.folder(problems: [Self.tooLarge("videos/holiday.mov")])]).first)
        #expect(one.body == "In Documents: file is 60 MB, over max_file_size (50 MB): kept on this device, not synced.")

        let many = try #require(NotificationPlanner.plan(
            previous: [], current: [Self.folder(problems: ["a.iso", "b.iso", "c.iso", "d/e.iso", "f.iso"].map(Self.tooLarge))]).first)
        #expect(many.body == "a.iso, b.iso, c.iso and 2 more: over max_file_size, kept on this device, not synced ('docs-status errors' lists them).")

        let refused = try #require(NotificationPlanner.plan(previous: [], current: [
            Self.folder(state: .error, message: FolderStatus.notAuthenticated)]).first)
        #expect(refused.body.hasPrefix("The backend refused this device's token") && refused.body.hasSuffix("restart docsyncd."), "\(refused.body)")

        let full = try #require(NotificationPlanner.plan(previous: [], current: [Self.fullStorage("Documents")]).first)
        #expect(full.body.hasPrefix("Storage full (1.2 GB / 1 GB); uploads paused"), "\(full.body)")
    }

    /// The same file reported twice (by the engine and by the index) is one file.
    @Test func aFileIsCountedOnce() throws {
        let problem = Self.tooLarge("big.bin")
        let planned = NotificationPlanner.plan(previous: [], current: [Self.folder(problems: [problem, problem])])
        #expect(planned.map(\.summary) == ["big.bin is too large to sync"])
        #expect(NotificationPlanner.situations(in: [Self.folder(problems: [problem, problem])]).first?.count == 1)
    }
}

import DocSyncCore
import DocSyncStorage
import Testing

/// How a share's entries change (SPEC §11): every action on every standing, as a table.
@Suite struct ShareRulesTests {
    static let share = ShareName(owner: "alice", zone: ZoneID("Taxes 2026"))
    static let now = Timestamp(nanosecondsSince1970: 2_000)

    static func entry(_ permission: SharePermission, _ status: ShareStatus) -> ShareEntry {
        ShareEntry(share: share, participant: "bob", permission: permission, status: status, changed: Timestamp(nanosecondsSince1970: 1_000))
    }

    enum Outcome: Equatable {
        /// The entry becomes this permission and status (stamped now).
        case becomes(SharePermission, ShareStatus)
        /// Nothing changes.
        case unchanged
        case fails(SyncError.Code)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var action: ShareAction
        var current: ShareEntry?
        var expected: Outcome
        var testDescription: String { "\(action) on \(current.map { "\($0.status) \($0.permission)" } ?? "no entry")" }
    }

    static let cases: [Case] = [
        // The owner's invitation: new, afresh after an end, or a permission change on an open entry.
        Case(action: .invite(.readWrite), current: nil, expected: .becomes(.readWrite, .invited)),
        Case(action: .invite(.readOnly), current: entry(.readWrite, .invited), expected: .becomes(.readOnly, .invited)),
        Case(action: .invite(.readOnly), current: entry(.readWrite, .accepted), expected: .becomes(.readOnly, .accepted)),
        Case(action: .invite(.readWrite), current: entry(.readWrite, .accepted), expected: .unchanged),
        Case(action: .invite(.readWrite), current: entry(.readOnly, .declined), expected: .becomes(.readWrite, .invited)),
        Case(action: .invite(.readWrite), current: entry(.readWrite, .removed), expected: .becomes(.readWrite, .invited)),
        Case(action: .invite(.readWrite), current: entry(.readWrite, .left), expected: .becomes(.readWrite, .invited)),
        Case(action: .invite(.readOnly), current: entry(.readWrite, .stopped), expected: .becomes(.readOnly, .invited)),
        // Removal and permission changes need an open entry.
        Case(action: .remove, current: entry(.readWrite, .invited), expected: .becomes(.readWrite, .removed)),
        Case(action: .remove, current: entry(.readOnly, .accepted), expected: .becomes(.readOnly, .removed)),
        Case(action: .remove, current: nil, expected: .fails(.invalidArguments)),
        Case(action: .remove, current: entry(.readWrite, .declined), expected: .fails(.invalidArguments)),
        Case(action: .remove, current: entry(.readWrite, .removed), expected: .fails(.invalidArguments)),
        Case(action: .setPermission(.readOnly), current: entry(.readWrite, .accepted), expected: .becomes(.readOnly, .accepted)),
        Case(action: .setPermission(.readWrite), current: entry(.readOnly, .invited), expected: .becomes(.readWrite, .invited)),
        Case(action: .setPermission(.readWrite), current: entry(.readWrite, .accepted), expected: .unchanged),
        Case(action: .setPermission(.readWrite), current: entry(.readOnly, .left), expected: .fails(.invalidArguments)),
        Case(action: .setPermission(.readWrite), current: nil, expected: .fails(.invalidArguments)),
        // Stopping ends what is open and leaves the rest.
        Case(action: .stop, current: entry(.readWrite, .invited), expected: .becomes(.readWrite, .stopped)),
        Case(action: .stop, current: entry(.readOnly, .accepted), expected: .becomes(.readOnly, .stopped)),
        Case(action: .stop, current: entry(.readWrite, .declined), expected: .unchanged),
        Case(action: .stop, current: nil, expected: .unchanged),
        // The participant's answers: nothing offered reads as a share that does not exist.
        Case(action: .accept, current: entry(.readOnly, .invited), expected: .becomes(.readOnly, .accepted)),
        Case(action: .accept, current: entry(.readWrite, .accepted), expected: .unchanged),
        Case(action: .accept, current: nil, expected: .fails(.zoneNotFound)),
        Case(action: .accept, current: entry(.readWrite, .removed), expected: .fails(.zoneNotFound)),
        Case(action: .accept, current: entry(.readWrite, .declined), expected: .fails(.zoneNotFound)),
        Case(action: .accept, current: entry(.readWrite, .stopped), expected: .fails(.zoneNotFound)),
        Case(action: .decline, current: entry(.readWrite, .invited), expected: .becomes(.readWrite, .declined)),
        Case(action: .decline, current: entry(.readWrite, .accepted), expected: .fails(.invalidArguments)),
        Case(action: .decline, current: nil, expected: .fails(.zoneNotFound)),
        Case(action: .leave, current: entry(.readWrite, .accepted), expected: .becomes(.readWrite, .left)),
        Case(action: .leave, current: entry(.readOnly, .invited), expected: .becomes(.readOnly, .left)),
        Case(action: .leave, current: entry(.readWrite, .left), expected: .fails(.zoneNotFound)),
    ]

    @Test(arguments: cases) func applies(_ check: Case) {
        let outcome: Outcome
        do {
            if let next = try ShareRules.apply(check.action, to: check.current, share: Self.share, participant: "bob", now: Self.now) {
                #expect(next.changed == Self.now, "a change is stamped")
                #expect(next.share == Self.share && next.participant == "bob")
                outcome = .becomes(next.permission, next.status)
            } else {
                outcome = .unchanged
            }
        } catch {
            outcome = .fails(error.code)
        }
        #expect(outcome == check.expected)
    }

    @Test func theOwnerIsNeverItsOwnParticipant() {
        #expect(throws: SyncError.self) {
            try ShareRules.apply(.invite(.readWrite), to: nil, share: Self.share, participant: "alice", now: Self.now)
        }
    }

    @Test func everyActionIsInTheTable() {
        let actions = Set(Self.cases.map { check -> String in
            switch check.action {
            case .invite: "invite"
            case .remove: "remove"
            case .setPermission: "setPermission"
            case .stop: "stop"
            case .accept: "accept"
            case .decline: "decline"
            case .leave: "leave"
            }
        })
        #expect(actions.count == 7)
    }
}

import DocSyncCore
import DocSyncStorage
import Testing

/// Who may do what in a shared zone (SPEC §11), as one table over every operation and
/// every standing a caller can have.
@Suite struct ZoneAccessTests {
    static let share = ShareName(owner: "alice", zone: ZoneID("Taxes 2026"))

    static func entry(_ permission: SharePermission, _ status: ShareStatus, participant: String = "bob") -> ShareEntry {
        ShareEntry(share: share, participant: participant, permission: permission, status: status, changed: Timestamp(nanosecondsSince1970: 1))
    }

    /// The operations in table order: read, save, recover, purge, manageZone, manageShare.
    static let operations: [ZoneOperation] = [.read, .save, .recover, .purge, .manageZone, .manageShare]

    enum Cell: Equatable { case allow, deny, hide }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var caller: String
        var entry: ShareEntry?
        var expected: [Cell]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "the owner", caller: "alice", entry: nil, expected: [.allow, .allow, .allow, .allow, .allow, .allow]),
        Case(name: "the owner, whatever entry is passed", caller: "alice", entry: entry(.readOnly, .removed, participant: "alice"),
             expected: [.allow, .allow, .allow, .allow, .allow, .allow]),
        Case(name: "a read-write participant", caller: "bob", entry: entry(.readWrite, .accepted),
             expected: [.allow, .allow, .allow, .deny, .deny, .deny]),
        Case(name: "a read-only participant", caller: "bob", entry: entry(.readOnly, .accepted),
             expected: [.allow, .deny, .deny, .deny, .deny, .deny]),
        Case(name: "invited, not accepted", caller: "bob", entry: entry(.readWrite, .invited), expected: Array(repeating: .hide, count: 6)),
        Case(name: "declined", caller: "bob", entry: entry(.readWrite, .declined), expected: Array(repeating: .hide, count: 6)),
        Case(name: "removed", caller: "bob", entry: entry(.readWrite, .removed), expected: Array(repeating: .hide, count: 6)),
        Case(name: "left", caller: "bob", entry: entry(.readWrite, .left), expected: Array(repeating: .hide, count: 6)),
        Case(name: "stopped", caller: "bob", entry: entry(.readWrite, .stopped), expected: Array(repeating: .hide, count: 6)),
        Case(name: "another account", caller: "frank", entry: nil, expected: Array(repeating: .hide, count: 6)),
        Case(name: "another account holding someone else's entry", caller: "frank", entry: entry(.readWrite, .accepted),
             expected: Array(repeating: .hide, count: 6)),
        Case(name: "an entry of another share", caller: "bob",
             entry: ShareEntry(share: ShareName(owner: "alice", zone: ZoneID("Other")), participant: "bob", permission: .readWrite,
                               status: .accepted, changed: Timestamp(nanosecondsSince1970: 1)),
             expected: Array(repeating: .hide, count: 6)),
    ]

    @Test(arguments: cases) func decides(_ check: Case) throws {
        for (operation, expected) in zip(Self.operations, check.expected) {
            let decision = ZoneAccess.decide(operation, caller: check.caller, share: Self.share, entry: check.entry)
            let cell: Cell = switch decision {
            case .allowed: .allow
            case .denied: .deny
            case .hidden: .hide
            }
            #expect(cell == expected, "\(operation)")
            switch decision {
            case .allowed(let role):
                #expect(try ZoneAccess.require(decision, operation, in: Self.share) == role)
            case .denied:
                let error = #expect(throws: SyncError.self) { try ZoneAccess.require(decision, operation, in: Self.share) }
                #expect(error?.code == .permissionDenied)
                #expect(error?.message.contains("alice/Taxes 2026") == true, "the message names the share")
            case .hidden:
                let error = #expect(throws: SyncError.self) { try ZoneAccess.require(decision, operation, in: Self.share) }
                #expect(error == SyncError.zoneNotFound(Self.share.zone), "exactly what a zone that does not exist answers")
            }
        }
    }

    /// An account's public key store (SPEC §13): any account reads it, only its owner writes it.
    @Test(arguments: [("another account", "frank"), ("a removed participant", "bob")])
    func anAccountsPublicKeyStoreIsReadableByEveryAccount(_ who: String, _ caller: String) {
        let store = ShareName(owner: "alice", zone: ZoneAccess.publicKeysZone)
        for operation in Self.operations {
            let decision = ZoneAccess.decide(operation, caller: caller, share: store, entry: Self.entry(.readWrite, .removed))
            #expect(decision == (operation == .read ? .allowed(.participant(.readOnly)) : .denied(.participant(.readOnly))), "\(who): \(operation)")
        }
        #expect(ZoneAccess.decide(.save, caller: "alice", share: store, entry: nil) == .allowed(.owner))
    }

    @Test func everyOperationIsInTheTable() {
        #expect(Set(Self.operations) == Set(ZoneOperation.allCases))
    }
}

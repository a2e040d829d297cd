import DocSyncCore
import Foundation
import Testing

/// A share's name, `OWNER/FOLDER-ID`, as commands and JSON carry it (SPEC §11).
@Suite struct ShareNameTests {
    @Test(arguments: [
        ("alice/Documents", "alice", "Documents"),
        ("bob/Taxes 2026", "bob", "Taxes 2026"),
        ("carol.d-1/a.b_c", "carol.d-1", "a.b_c"),
    ])
    func parses(_ text: String, _ owner: String, _ zone: String) throws {
        let share = try ShareName(parsing: text)
        #expect(share.owner == owner)
        #expect(share.zone == ZoneID(zone))
        #expect(share.description == text, "it prints as it is written")
        let json = try JSONEncoder().encode(share)
        #expect(try JSONDecoder().decode(String.self, from: json) == text, "a JSON string as it is written")
        #expect(try JSONDecoder().decode(ShareName.self, from: json) == share)
    }

    @Test(arguments: ["", "alice", "/Documents", "alice/", "alice/a/b", "alice/.hidden"])
    func refuses(_ text: String) {
        let error = #expect(throws: SyncError.self) { try ShareName(parsing: text) }
        #expect(error?.code == .invalidArguments)
        #expect(JSONDecoderRefuses(text), "JSON refuses it too")
    }

    private func JSONDecoderRefuses(_ text: String) -> Bool {
        (try? JSONDecoder().decode(ShareName.self, from: JSONEncoder().encode(text))) == nil
    }

    @Test func permissionsReadAsCommandsWriteThem() {
        #expect(SharePermission(argument: "read-only") == .readOnly)
        #expect(SharePermission(argument: "read-write") == .readWrite)
        #expect(SharePermission(argument: "readOnly") == .readOnly)
        #expect(SharePermission(argument: "write") == nil)
        for permission in SharePermission.allCases { #expect(SharePermission(argument: permission.argument) == permission) }
    }

    @Test func sortedByOwnerThenZone() {
        let names = [ShareName(owner: "bob", zone: ZoneID("A")), ShareName(owner: "alice", zone: ZoneID("B")),
                     ShareName(owner: "alice", zone: ZoneID("A"))]
        #expect(names.sorted().map(\.description) == ["alice/A", "alice/B", "bob/A"])
    }
}

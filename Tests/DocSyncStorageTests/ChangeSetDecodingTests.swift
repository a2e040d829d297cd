import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// A page of changes decodes record by record: invalid records are refused, never applied,
/// and never take the valid ones down with them.
@Suite struct ChangeSetDecodingTests {
    static let zone = ZoneID("Docs")

    static func page(with forged: [String: Any]) throws -> Data {
        let valid = Record(id: RecordID(zone: zone, recordName: "good"), type: .folder, changeTag: ChangeTag("t1"),
                           path: RelativePath("Projects"), modified: Timestamp(seconds: 1_700_000_000, nanoseconds: 0), mode: 0o755, lastModifiedBy: "laptop")
        let page = ChangeSet(changed: [valid], deleted: [], token: ChangeToken(opaqueValue: Data([1])), moreComing: false)
        var json = try JSONSerialization.jsonObject(with: WireCoding.encoder.encode(page)) as! [String: Any]
        var original = (json["changed"] as! [[String: Any]])[0]
        var id = original["id"] as! [String: Any]
        id["recordName"] = "forged"
        original["id"] = id
        for (key, value) in forged { original[key] = value }
        json["changed"] = [original, (json["changed"] as! [[String: Any]])[0]]
        return try JSONSerialization.data(withJSONObject: json)
    }

    @Test(arguments: [
        ("../x", "'..'"), ("/etc/passwd", "absolute"), ("a/../../x", "'..'"), ("nul\u{0}byte", "NUL"), ("", "empty"), ("a//b", "empty"),
    ])
    func aRecordWithABadPathIsRefused(_ path: String, _ mentioned: String) throws {
        let decoded = try WireCoding.decode(ChangeSet.self, from: Self.page(with: ["path": path]))
        #expect(decoded.changed.map(\.id.recordName) == ["good"])
        #expect(decoded.refused.count == 1)
        #expect(decoded.refused.first?.recordName == "forged")
        #expect(decoded.refused.first?.path == path.replacingOccurrences(of: "\u{0}", with: "\\u{0}"))
        #expect(decoded.refused.first?.reason.localizedCaseInsensitiveContains(mentioned) == true, "\(decoded.refused)")
    }

    @Test func aRecordBreakingTheRecordRulesIsRefused() throws {
        // A Folder carrying a symlink target: decodes, but is not a valid record.
        let decoded = try WireCoding.decode(ChangeSet.self, from: Self.page(with: ["symlinkTarget": "/etc"]))
        #expect(decoded.changed.map(\.id.recordName) == ["good"])
        #expect(decoded.refused.map(\.recordName) == ["forged"])
        #expect(decoded.refused.first?.reason.contains("Folder has no content") == true, "\(decoded.refused)")
    }

    @Test func aRecordThatIsNotARecordIsRefused() throws {
        let decoded = try WireCoding.decode(ChangeSet.self, from: Self.page(with: ["type": "Device", "mode": "rwx"]))
        #expect(decoded.changed.map(\.id.recordName) == ["good"])
        #expect(decoded.refused.map(\.recordName) == ["forged"])
    }

    @Test func aValidPageRoundTripsWithoutARefusedList() throws {
        let page = try WireCoding.decode(ChangeSet.self, from: Self.page(with: ["path": "Archive"]))
        #expect(page.refused.isEmpty)
        #expect(page.changed.map(\.path.string) == ["Archive", "Projects"])
        let encoded = try WireCoding.encoder.encode(page)
        #expect(!String(decoding: encoded, as: UTF8.self).contains("refused"))
        #expect(try WireCoding.decode(ChangeSet.self, from: encoded) == page)
    }
}

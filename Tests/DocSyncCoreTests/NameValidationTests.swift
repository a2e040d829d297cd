import DocSyncCore
import DocSyncPlatform
import Foundation
import Testing

@Suite struct NameValidationTests {
    @Test(arguments: ["a", "a/b", "dir/file.txt", "with space/ünïcödé", "x/.hidden", "a/b/c/d/e", "...", "a..b",
                            "a/.../b", "..a/b.", "x/.y/..z", String(repeating: "x", count: 255) + "/y"])
    func acceptsValidRelativePaths(path: String) throws {
        #expect(try RelativePath(validating: path).string == path)
    }

    @Test(arguments: [
        ("", "is empty"), ("/abs", "is absolute"), ("..", "'..'"), ("a/../b", "'..'"), ("./a", "'.'"), ("a//b", "empty component"),
        ("a/", "empty component"), ("a\u{0}b", "NUL"), (String(repeating: "x", count: 256), "longer than 255"),
        (Array(repeating: "abcdefgh", count: 600).joined(separator: "/"), "longer than 4096"),
        ("x/..", "'..'"), ("x/.", "'.'"), (".", "'.'"), ("/", "is absolute"), ("a/b//", "empty component"),
        ("ok/" + String(repeating: "é", count: 128), "longer than 255"),
    ])
    func rejectsPathsThatCouldEscapeOrBreak(path: String, reason: String) {
        #expect(RelativePath.problem(with: path)?.contains(reason) == true, "\(path.prefix(20)): \(RelativePath.problem(with: path) ?? "accepted")")
    }

    @Test func pathPartsAndDecoding() throws {
        let path = RelativePath("docs/2026/report.pdf")
        #expect(path.name == "report.pdf")
        #expect(path.parent == RelativePath("docs/2026"))
        #expect(RelativePath("top").parent == nil)
        #expect(RelativePath("top").name == "top")
        #expect(RelativePath("top").depth == 1 && path.depth == 3)
        #expect(RelativePath("ä/ünï cödé.txt").name == "ünï cödé.txt")
        #expect(RelativePath("ä/b/c").parent?.parent == RelativePath("ä"))
        #expect(try path.appending("x") == RelativePath("docs/2026/report.pdf/x"))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(RelativePath.self, from: Data("\"../x\"".utf8)) }
    }

    @Test(arguments: [("Documents", true), ("My Files-2.0_x", true), ("Ünïcode", true), ("", false), (".hidden", false),
                      ("a/b", false), ("a\u{0}", false), ("semi;colon", false)])
    func zoneNames(name: String, valid: Bool) {
        #expect((ZoneID.problem(with: name) == nil) == valid)
    }

    @Test(arguments: [("abc123", true), (RecordID.newName(), true), ("", false), ("..", false), ("a/b", false), ("a b", false),
                      ("tab\t", false), (String(repeating: "r", count: 256), false)])
    func recordNames(name: String, valid: Bool) {
        #expect((RecordID.problem(with: name) == nil) == valid)
    }

    @Test func newRecordNamesAreTimeOrderedThenRandomInLowercaseHex() {
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        let names = (0..<10_000).map { _ in RecordID.newName() }
        let after = UInt64(Date().timeIntervalSince1970 * 1000)
        #expect(Set(names).count == names.count)
        for name in names {
            #expect(name.utf8.count == 32)
            #expect(name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        }
        // Made later, sorts later: a table keyed by record name grows at its end.
        #expect(zip(names, names.dropFirst()).allSatisfy { $0 < $1 })
        // The first 12 digits are the milliseconds of making (the counter may carry past
        // the clock when thousands are made in one millisecond, by seconds at most).
        let first = UInt64(names[0].prefix(12), radix: 16) ?? 0, last = UInt64(names[names.count - 1].prefix(12), radix: 16) ?? 0
        #expect(first >= before && first <= after + 1000)
        #expect(last >= first && last <= after + 1000)
        // Every hex digit shows up in every random position across many names (no stuck nibble).
        for position in 16..<32 {
            let digits = Set(names.map { Array($0.utf8)[position] })
            #expect(digits.count == 16, "position \(position)")
        }
    }
}

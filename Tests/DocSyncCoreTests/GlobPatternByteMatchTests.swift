@testable import DocSyncCore
import Testing

/// Names of plain ASCII are matched byte by byte: the answer must always be the one the
/// character-by-character match gives.
@Suite struct GlobPatternByteMatchTests {
    @Test func bytesAnswerAsCharactersDo() throws {
        let patternPieces = ["a", "b", ".", "*", "?", "[ab]", "[!a]", "[a-c]", "\\*", "\r", "\n", "\r\n", "é", "[é]", "~"]
        let stringPieces = ["a", "b", "c", ".", "*", "\r", "\n", "\r\n", "e\u{301}", "é", "~"]
        var random = SplitMix64(seed: 2026)
        func pick(_ pieces: [String], upTo count: Int) -> String {
            (0..<Int(random.next() % UInt64(count + 1))).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
        }
        var byBytes = 0
        for _ in 0..<3_000 {
            let glob = try GlobPattern(pick(patternPieces, upTo: 5))
            for _ in 0..<10 {
                let string = pick(stringPieces, upTo: 6)
                #expect(glob.matches(string) == glob.matches(Array(string)), "\(glob.pattern.debugDescription) on \(string.debugDescription)")
                if string.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) { byBytes += 1 }
            }
        }
        #expect(byBytes > 5_000, "the byte path was tried on plain ASCII names")
    }

    @Test(arguments: [
        ("*.swp", "notes.swp", true), ("*.swp", "notes.swo", false), ("*~", "draft~", true), (".#*", ".#lock", true),
        ("~$*", "~$report.docx", true), (".~lock.*#", ".~lock.a.odt#", true), (".~lock.*#", ".~lock.a.odt", false),
        ("?", "\r\n", true), ("??", "\r\n", false), ("a?", "a\r", true), ("[!a]", "\r\n", true),
    ])
    func plainAndNearlyPlainNames(pattern: String, string: String, expected: Bool) throws {
        #expect(try GlobPattern(pattern).matches(string) == expected)
    }
}

import DocSyncCore
import DocSyncTestSupport
import Testing

@Suite struct GlobPatternTests {
    @Test(arguments: [
        // Literals, anchored at both ends.
        ("abc", "abc", true), ("abc", "abcd", false), ("abc", "xabc", false), ("abc", "ab", false), ("abc", "ABC", false),
        ("", "", true), ("", "a", false),
        // `*`
        ("*", "", true), ("*", "anything at all", true), ("*", "a/b/c", true),
        ("*.pdf", "report.pdf", true), ("*.pdf", ".pdf", true), ("*.pdf", "report.pdf.bak", false), ("*.pdf", "report.PDF", false),
        ("a*", "a", true), ("a*", "abc", true), ("a*", "ba", false), ("*a", "bca", true), ("*a", "ab", false),
        ("a*b*c", "abc", true), ("a*b*c", "aXXbYYc", true), ("a*b*c", "acb", false), ("a*b*c", "abcbc", true),
        ("**", "", true), ("**", "x/y", true), ("a**b", "ab", true), ("a***b", "aXYZb", true), ("**.txt", "dir/a.txt", true),
        ("*x*", "x", true), ("*x*", "abc", false), ("*ab", "aab", true), ("*aab", "aaab", true),
        // `?`
        ("?", "a", true), ("?", "", false), ("?", "ab", false), ("a?c", "abc", true), ("a?c", "ac", false),
        ("??*", "ab", true), ("??*", "a", false), ("*?", "", false), ("*?", "é", true),
        // Classes
        ("[abc]", "a", true), ("[abc]", "c", true), ("[abc]", "d", false), ("[abc]", "", false), ("[abc]", "ab", false),
        ("[a-z]", "m", true), ("[a-z]", "M", false), ("[a-z]", "-", false), ("[0-9][0-9]", "42", true), ("[0-9]", "x", false),
        ("[!a]", "b", true), ("[!a]", "a", false), ("[^a]", "b", true), ("[^a]", "a", false), ("[!a-c]", "d", true),
        ("[!a-c]", "b", false), ("[]]", "]", true), ("[]a]", "a", true), ("[!]]", "]", false), ("[!]]", "x", true),
        ("[a-]", "-", true), ("[-a]", "-", true), ("[a-]", "b", false), ("[*?]", "*", true), ("[*?]", "x", false),
        ("[[]", "[", true), ("x[ab]y", "xby", true), ("[a-cx-z]", "y", true), ("[a-cx-z]", "m", false),
        ("[\\]]", "]", true), ("[\\-a]", "-", true), ("[a\\-c]", "b", false), ("[a\\-c]", "-", true),
        // Escapes
        ("\\*", "*", true), ("\\*", "a", false), ("\\?", "?", true), ("\\?", "a", false), ("\\[a]", "[a]", true),
        ("\\\\", "\\", true), ("a\\bc", "abc", true), ("\\*.txt", "*.txt", true), ("\\*.txt", "a.txt", false),
        // Special characters that are not special to a glob
        ("a.c", "a.c", true), ("a.c", "abc", false), ("(a)+$", "(a)+$", true), ("]", "]", true), ("a]b", "a]b", true),
        ("-", "-", true), ("!x", "!x", true), ("^x", "^x", true), ("#", "#", true),
        // Unicode: characters are grapheme clusters, compared by their scalars exactly (names
        // are bytes, SPEC §4a: NFC `café` and NFD `cafe\u{301}` are two names)
        ("caf?", "café", true), ("caf?", "cafe\u{301}", true), ("café", "cafe\u{301}", false), ("cafe\u{301}", "café", false),
        ("cafe\u{301}", "cafe\u{301}", true), ("*é", "résumé", true), ("*é", "re\u{301}sume\u{301}", false), ("[é]", "e\u{301}", false),
        ("?", "👩‍👩‍👧", true), ("??", "👩‍👩‍👧", false), ("日本*", "日本語.txt", true), ("[日月]", "月", true),
        ("[α-ω]", "λ", true), ("[α-ω]", "a", false), ("*.文書", "報告.文書", true), ("?", "\r\n", true),
        ("a b", "a b", true), ("a?b", "a\nb", true), ("*", "\n", true),
        // Literal ends that overlap in a short string
        ("ab*ba", "aba", false), ("ab*ba", "abba", true), ("ab*ba", "abXba", true), ("a*a", "a", false), ("a*a", "aa", true),
        ("*.swp", "x.swp.txt", false), ("caf*é", "cafe\u{301}", false), ("caf*é", "caf\u{E9}", true),
        ("caf*e\u{301}", "cafe\u{301}", true), ("caf*e\u{301}", "caf\u{E9}", false),
    ])
    func matches(pattern: String, string: String, expected: Bool) throws {
        #expect(try GlobPattern(pattern).matches(string) == expected)
    }

    @Test(arguments: [
        ("*.PDF", "report.pdf", true), ("*.pdf", "REPORT.PDF", true), ("ABC", "abc", true), ("abc", "abd", false),
        ("[A-Z]", "m", true), ("[a-z]", "M", true), ("[!a]", "A", false), ("straße", "STRASSE", false),
        ("ÉTÉ", "été", true), ("?x", "Ax", true), ("Ω", "ω", true),
    ])
    func matchesIgnoringCase(pattern: String, string: String, expected: Bool) throws {
        #expect(try GlobPattern(pattern, caseInsensitive: true).matches(string) == expected)
    }

    @Test(arguments: [
        ("[abc", 1, "unterminated"), ("a[", 2, "unterminated"), ("[!", 1, "unterminated"), ("[]", 1, "unterminated"),
        ("*.[ch", 3, "unterminated"), ("ok[a-", 3, "unterminated"), ("a\\", 2, "nothing after"), ("[a\\", 3, "nothing after"),
        ("x[z-a]", 5, "reversed range"), ("[9-0]", 4, "reversed range"),
    ])
    func reportsWhereAPatternIsBad(pattern: String, position: Int, problem: String) {
        do {
            _ = try GlobPattern(pattern)
            Issue.record("\(pattern.debugDescription) parsed")
        } catch {
            #expect(error.code == .invalidArguments)
            #expect(error.message.contains("position \(position)"), "\(error.message)")
            #expect(error.message.contains(problem), "\(error.message)")
        }
    }

    @Test func pathologicalPatternsFinishFast() throws {
        let long = String(repeating: "a", count: 20_000)
        let cases: [(GlobPattern, String, Bool)] = [
            (try GlobPattern("a*a*a*a*a*a*a*a*b"), long, false),
            (try GlobPattern("a*a*a*a*a*a*a*a*a"), long, true),
            (try GlobPattern(String(repeating: "*a", count: 40) + "*b"), String(repeating: "a", count: 2_000), false),
            (try GlobPattern(String(repeating: "?", count: 20_001)), long, false),
            (try GlobPattern("*" + String(repeating: "a", count: 100)), long, true),
        ]
        // CPU time, not wall time: a full run on two cores can keep this thread waiting
        // for seconds, while a backtracking matcher would need minutes of CPU.
        let started = threadCPUSeconds()
        for (glob, string, expected) in cases {
            #expect(glob.matches(string) == expected, "\(glob.pattern.prefix(40))")
        }
        let used = threadCPUSeconds() - started
        #expect(used < 5, "took \(used) s of CPU")
    }

    @Test func keepsWhatItWasMadeFrom() throws {
        let glob = try GlobPattern("*.PDF", caseInsensitive: true)
        #expect(glob.pattern == "*.PDF")
        #expect(glob.caseInsensitive)
        #expect(glob.description == "*.PDF")
        #expect(try GlobPattern("*.pdf") == GlobPattern("*.pdf"))
        #expect(try GlobPattern("*.pdf") != GlobPattern("*.pdf", caseInsensitive: true))
    }
}

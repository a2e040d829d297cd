import DocSyncCore
import Testing

@Suite struct IgnoreRulesTests {
    static func path(_ string: String) -> RelativePath { RelativePath(string) }

    // MARK: - Defaults

    @Test(arguments: [
        // Editor swap and backup files
        "x.swp", ".notes.txt.swp", "notes~", "a.txt~", "~", ".#notes.txt", ".#", "~$report.docx", "~$",
        ".~lock.report.odt#", ".~lock.#",
        // .nosync, as in iCloud Drive
        "Photos.nosync", "a.nosync", ".nosync", "x y.nosync",
        // The daemon's own temporary files
        ".docsync-tmp-", ".docsync-tmp-1234", ".docsync-tmp-report.pdf",
        // On-demand placeholders
        ".report.pdf.docsync", ".a.docsync", ". .docsync",
    ])
    func defaultsIgnore(name: String) {
        #expect(IgnoreRules.defaults.isIgnored(Self.path(name), isDirectory: false))
        #expect(IgnoreRules.defaults.isIgnored(Self.path("deep/down/" + name), isDirectory: false))
        #expect(IgnoreRules.defaults.isIgnored(name: name, parent: Self.path("deep/down"), isDirectory: false))
        #expect(IgnoreRules.defaults.isIgnored(Self.path(name), isDirectory: true), "directories too")
    }

    @Test(arguments: [
        "swp.txt", "a.swp.txt", "a.swpx", "x.SWP", "swp", "notes~.txt", "a~b", "~notes", "x.#notes", "#notes", "a.#",
        "~report.docx", "a~$b", "$~report", ".~lock.report.odt", "~lock.x#", ".lock.x#", ".~lockx#",
        "a.nosync.txt", "nosync", "a.NOSYNC", "a-nosync", "a.nosync~x", "docsync-tmp-1", ".docsync-tmp", ".docsync-temp-1",
        "x.docsync-tmp-1", "report.pdf", "Makefile", ".bashrc", IgnoreRules.fileName,
        "report.docsync", ".docsync", "a.b.docsync", ".x.docsync.txt",
    ])
    func defaultsDoNotIgnoreNearMisses(name: String) {
        #expect(!IgnoreRules.defaults.isIgnored(Self.path(name), isDirectory: false))
        #expect(!IgnoreRules.defaults.isIgnored(Self.path("a/" + name), isDirectory: true))
        #expect(!IgnoreRules.defaults.isIgnored(name: name, parent: nil, isDirectory: false))
    }

    @Test(arguments: [
        ("Photos.nosync/a.jpg", true), ("Photos.nosync/sub/deeper/b.jpg", true), ("x/cache.nosync/y/z", true),
        ("x/.docsync-tmp-9/y", true), ("x/nosync/y", false), ("x/a.nosync.d/y", false), ("a/b/c.txt", false),
    ])
    func anIgnoredFolderIgnoresItsContents(path: String, ignored: Bool) {
        #expect(IgnoreRules.defaults.isIgnored(Self.path(path), isDirectory: false) == ignored)
        #expect(IgnoreRules.defaults.isIgnored(Self.path(path), isDirectory: true) == ignored)
        let relative = Self.path(path)
        #expect(IgnoreRules.defaults.isIgnored(name: relative.name, parent: relative.parent, isDirectory: false) == ignored)
    }

    @Test func defaultsHaveNoProblems() {
        #expect(IgnoreRules.defaults.problems.isEmpty)
        #expect(IgnoreRules(ignoreFileContents: nil).problems.isEmpty)
        #expect(IgnoreRules(ignoreFileContents: "").problems.isEmpty)
        #expect(IgnoreRules.fileName == ".docsyncignore")
        #expect(IgnoreRules.defaultPatterns.count == 10)
    }

    @Test(arguments: [
        (".Trash-0", true, true), (".Trash-1000/files/report.pdf", false, true), (".Trash-1000/info", true, true),
        ("sub/.Trash-1000", true, false), (".Trash-1000", false, false), (".Trash", true, false),
    ])
    func trashFoldersAtTheRootAreIgnored(path: String, isDirectory: Bool, ignored: Bool) {
        #expect(IgnoreRules.defaults.isIgnored(Self.path(path), isDirectory: isDirectory) == ignored)
    }

    @Test func theRootMarkerIsIgnoredAtTheRootOnly() {
        let marker = IgnoreRules.rootMarkerName
        #expect(marker == ".docsync-root")
        #expect(IgnoreRules.defaults.isIgnored(Self.path(marker), isDirectory: false))
        #expect(!IgnoreRules.defaults.isIgnored(Self.path("sub/" + marker), isDirectory: false), "a synced folder's copy inside another is ordinary content")
        #expect(!IgnoreRules.defaults.isIgnored(Self.path(marker + "x"), isDirectory: false))
    }

    // MARK: - .docsyncignore

    static let file = """
        # Build output
        build/
        *.log   \("")
        /TODO.txt

        docs/*.tmp
        /cache/**/*.bin
        **/secret
        # \\# makes a literal hash
        \\#literal
        trailing\\ \("")
        \\!bang
        windows.txt\r
          indented
        """

    static let rules = IgnoreRules(ignoreFileContents: file)

    @Test(arguments: [
        // dir-only, unanchored: any directory named build, at any depth, and what is inside
        ("build", true, true), ("build", false, false), ("src/build", true, true), ("src/build", false, false),
        ("src/build/out.o", false, true), ("build/x/y", false, true), ("builder", true, false),
        // unanchored name pattern, trailing spaces trimmed
        ("app.log", false, true), ("a/b/c/app.log", false, true), ("logs", true, false), ("app.log.1", false, false),
        ("app.log   ", false, false),
        // anchored with a leading /
        ("TODO.txt", false, true), ("sub/TODO.txt", false, false),
        // anchored by an inner /: from the root only, and `*` stays within one component
        ("docs/a.tmp", false, true), ("docs/.tmp", false, true), ("x/docs/a.tmp", false, false), ("docs/sub/a.tmp", false, false),
        ("a.tmp", false, false),
        // `**` spans any number of components, none included
        ("cache/a.bin", false, true), ("cache/x/y/z/a.bin", false, true), ("other/cache/a.bin", false, false),
        ("cache/a.bin.txt", false, false),
        ("secret", false, true), ("a/b/secret", true, true), ("a/b/secret/inside", false, true), ("a/secrets", false, false),
        // escapes
        ("#literal", false, true), ("trailing ", false, true), ("trailing", false, false), ("!bang", false, true),
        // CRLF line
        ("windows.txt", false, true),
        // leading spaces are part of the pattern
        ("  indented", false, true), ("indented", false, false),
        // comments are not patterns
        ("# Build output", false, false),
        // the defaults still apply
        ("x.swp", false, true), ("a.nosync/b", false, true),
    ])
    func ignoreFile(path: String, isDirectory: Bool, ignored: Bool) {
        #expect(Self.rules.problems.isEmpty, "\(Self.rules.problems)")
        #expect(Self.rules.isIgnored(Self.path(path), isDirectory: isDirectory) == ignored)
        let relative = Self.path(path)
        #expect(Self.rules.isIgnored(name: relative.name, parent: relative.parent, isDirectory: isDirectory) == ignored)
    }

    @Test func badLinesAreReportedWithTheirNumbersAndSkipped() {
        let rules = IgnoreRules(ignoreFileContents: """
            *.bak
            [unterminated
            # fine
            !negated
            /
            a//b
            ok/
            x/../y
            bad\\
            z[9-0]
            *.keep
            """)
        #expect(rules.problems.map(\.line) == [2, 4, 5, 6, 8, 9, 10])
        #expect(rules.problems[0].message.contains("unterminated"))
        #expect(rules.problems[1].message.contains("negation"))
        #expect(rules.problems[2].message.contains("empty"))
        #expect(rules.problems[3].message.contains("empty component"))
        #expect(rules.problems[4].message.contains("'..'"))
        #expect(rules.problems[6].message.contains("reversed range"))
        #expect(rules.problems[0].description.hasPrefix(".docsyncignore:2: "))
        // The good lines around them still work.
        #expect(rules.isIgnored(Self.path("a.bak"), isDirectory: false))
        #expect(rules.isIgnored(Self.path("d/x.keep"), isDirectory: false))
        #expect(rules.isIgnored(Self.path("ok"), isDirectory: true))
        #expect(!rules.isIgnored(Self.path("negated"), isDirectory: false))
        #expect(!rules.isIgnored(Self.path("unterminated"), isDirectory: false))
    }

    @Test func windowsLineEndingsWork() {
        let rules = IgnoreRules(ignoreFileContents: "# comment\r\n*.tmp\r\n\r\n[bad\r\nout/\r\n")
        #expect(rules.problems.map(\.line) == [4])
        #expect(rules.isIgnored(Self.path("a.tmp"), isDirectory: false))
        #expect(rules.isIgnored(Self.path("out"), isDirectory: true))
        #expect(!rules.isIgnored(Self.path("a.tmp\r"), isDirectory: false))
    }

    @Test func blankAndCommentOnlyFilesAddNothing() {
        let rules = IgnoreRules(ignoreFileContents: "\n\n   \n# comment\n\t# not a comment but harmless\n\r\n")
        #expect(rules.problems.isEmpty)
        #expect(!rules.isIgnored(Self.path("comment"), isDirectory: false))
        #expect(!rules.isIgnored(Self.path("a.txt"), isDirectory: false))
    }

    @Test func aStarPatternIgnoresEverything() {
        let rules = IgnoreRules(ignoreFileContents: "*")
        #expect(rules.isIgnored(Self.path("a"), isDirectory: false))
        #expect(rules.isIgnored(name: "b", parent: Self.path("x/y"), isDirectory: true))
    }

    @Test func nameAndPathFormsAgreeOnManyPaths() {
        let rules = Self.rules
        let names = ["build", "a.log", "docs", "a.tmp", "cache", "x.bin", "secret", "plain.txt", "b.nosync", "~$x"]
        for first in names {
            for second in names {
                for third in names {
                    let path = RelativePath("\(first)/\(second)/\(third)")
                    for isDirectory in [false, true] {
                        #expect(rules.isIgnored(path, isDirectory: isDirectory)
                                == rules.isIgnored(name: third, parent: path.parent, isDirectory: isDirectory))
                    }
                }
            }
        }
    }
}

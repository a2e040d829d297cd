import DocSyncCore
import Foundation
import Testing

@Suite struct ConflictNameTests {
    static let utc = TimeZone(secondsFromGMT: 0)!
    /// 2026-11-22 10:04:05.75 UTC.
    static let time = Timestamp(seconds: 1_795_341_845, nanoseconds: 750_000_000)

    static func copy(_ path: String, device: String = "laptop", time: Timestamp = time, timeZone: TimeZone = utc,
                     taken: Set<String> = []) -> String {
        ConflictName.copyPath(for: RelativePath(path), device: device, time: time, timeZone: timeZone,
                              isTaken: { taken.contains($0.string) }).string
    }

    @Test(arguments: [
        ("a.tar.gz", "a.tar", ".gz"),
        (".bashrc", ".bashrc", ""),
        ("Makefile", "Makefile", ""),
        ("x.", "x.", ""),
        ("report.final.pdf", "report.final", ".pdf"),
        ("report.pdf", "report", ".pdf"),
        ("a.b", "a", ".b"),
        (".config.json", ".config", ".json"),
        ("..", "..", ""),
        ("...", "...", ""),
        ("..x", ".", ".x"),
        ("a..b", "a.", ".b"),
        ("naïve résumé.TXT", "naïve résumé", ".TXT"),
        ("photo.jpeg ", "photo", ".jpeg "),
        ("", "", ""),
        ("日本語.文書", "日本語", ".文書"),
    ])
    func split(name: String, stem: String, ext: String) {
        let parts = ConflictName.split(name)
        #expect(parts.stem == stem)
        #expect(parts.ext == ext)
        #expect(parts.stem + parts.ext == name)
    }

    @Test(arguments: [
        ("report.pdf", "laptop", "report (conflict laptop 2026-11-22 10.04.05).pdf"),
        ("docs/report.pdf", "laptop", "docs/report (conflict laptop 2026-11-22 10.04.05).pdf"),
        ("a/b/c/Makefile", "desk", "a/b/c/Makefile (conflict desk 2026-11-22 10.04.05)"),
        (".bashrc", "laptop", ".bashrc (conflict laptop 2026-11-22 10.04.05)"),
        ("a.tar.gz", "laptop", "a.tar (conflict laptop 2026-11-22 10.04.05).gz"),
        ("x.", "laptop", "x. (conflict laptop 2026-11-22 10.04.05)"),
        ("notes.txt", "Jane's MacBook", "notes (conflict Jane's MacBook 2026-11-22 10.04.05).txt"),
        ("notes.txt", "my/laptop", "notes (conflict my-laptop 2026-11-22 10.04.05).txt"),
        ("notes.txt", "back\\slash", "notes (conflict back-slash 2026-11-22 10.04.05).txt"),
        ("notes.txt", "two\nlines", "notes (conflict two-lines 2026-11-22 10.04.05).txt"),
        ("notes.txt", "nul\u{0}bell\u{7}del\u{7F}", "notes (conflict nul-bell-del- 2026-11-22 10.04.05).txt"),
        ("notes.txt", "", "notes (conflict unknown 2026-11-22 10.04.05).txt"),
        ("notes.txt", "ラップトップ", "notes (conflict ラップトップ 2026-11-22 10.04.05).txt"),
        ("résumé.odt", "pc", "résumé (conflict pc 2026-11-22 10.04.05).odt"),
        ("dir.with.dots/file", "pc", "dir.with.dots/file (conflict pc 2026-11-22 10.04.05)"),
    ])
    func copyName(path: String, device: String, expected: String) {
        #expect(Self.copy(path, device: device) == expected)
    }

    @Test func numbersTakenNamesInsideTheParentheses() {
        let taken: Set = [
            "docs/report (conflict laptop 2026-11-22 10.04.05).pdf",
            "docs/report (conflict laptop 2026-11-22 10.04.05 2).pdf",
            "docs/report (conflict laptop 2026-11-22 10.04.05 3).pdf",
        ]
        #expect(Self.copy("docs/report.pdf", taken: taken) == "docs/report (conflict laptop 2026-11-22 10.04.05 4).pdf")
        #expect(Self.copy("docs/report.pdf", taken: ["docs/report (conflict laptop 2026-11-22 10.04.05).pdf"]) == "docs/report (conflict laptop 2026-11-22 10.04.05 2).pdf")
        // A taken name elsewhere does not matter.
        #expect(Self.copy("report.pdf", taken: taken) == "report (conflict laptop 2026-11-22 10.04.05).pdf")
    }

    @Test func asksOnlyUntilAFreeNameIsFound() {
        var asked: [String] = []
        let path = ConflictName.copyPath(for: RelativePath("a.txt"), device: "d", time: Self.time, timeZone: Self.utc) {
            asked.append($0.string)
            return asked.count < 3
        }
        #expect(asked == ["a (conflict d 2026-11-22 10.04.05).txt", "a (conflict d 2026-11-22 10.04.05 2).txt",
                          "a (conflict d 2026-11-22 10.04.05 3).txt"])
        #expect(path.string == asked.last)
    }

    @Test(arguments: [
        (Timestamp(seconds: 1_795_341_845, nanoseconds: 0), 0, "2026-11-22 10.04.05"),
        (Timestamp(seconds: 1_795_341_845, nanoseconds: 999_999_999), 0, "2026-11-22 10.04.05"),
        (Timestamp(seconds: 1_795_341_845, nanoseconds: 0), 3600, "2026-11-22 11.04.05"),
        (Timestamp(seconds: 1_795_341_845, nanoseconds: 0), -11 * 3600, "2026-11-21 23.04.05"),
        (Timestamp(seconds: 1_795_341_845, nanoseconds: 0), 5 * 3600 + 1800, "2026-11-22 15.34.05"),
        (Timestamp(seconds: 1_709_251_199, nanoseconds: 0), 0, "2024-02-29 23.59.59"),
        (Timestamp(seconds: 1_709_251_199, nanoseconds: 0), 1, "2024-03-01 00.00.00"),
        (Timestamp(seconds: 946_684_800, nanoseconds: 0), 0, "2000-01-01 00.00.00"),
        (Timestamp(seconds: 0, nanoseconds: 0), 0, "1970-01-01 00.00.00"),
        (Timestamp(nanosecondsSince1970: -1), 0, "1969-12-31 23.59.59"),
    ])
    func formatsTheTimeInTheTimeZone(time: Timestamp, offset: Int, expected: String) {
        #expect(ConflictName.format(time, in: TimeZone(secondsFromGMT: offset)!) == expected)
    }

    @Test func followsDaylightSavingTimeOfTheNamedZone() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        // 2026-07-01 12:00:00 UTC is 14:00 in Berlin (summer), 2026-11-22 10:04:05 UTC is 11:04 (winter).
        #expect(ConflictName.format(Timestamp(seconds: 1_782_907_200, nanoseconds: 0), in: berlin) == "2026-07-01 14.00.00")
        #expect(ConflictName.format(Self.time, in: berlin) == "2026-11-22 11.04.05")
        #expect(Self.copy("a.txt", timeZone: berlin) == "a (conflict laptop 2026-11-22 11.04.05).txt")
    }

    @Test func longNamesAreShortenedOnACharacterBoundaryKeepingTheExtension() throws {
        for stemCharacter in ["a", "é", "日", "👩‍👩‍👧"] {
            var stem = ""
            while (stem + stemCharacter + ".pdf").utf8.count <= 255 { stem += stemCharacter }
            let original = stem + ".pdf"
            for taken in [Set<String>(), [Self.copy(original)]] {
                let name = Self.copy(original, taken: taken)
                #expect(name.utf8.count <= 255, "\(name.utf8.count) bytes")
                #expect(name.utf8.count > 230, "shortened more than needed: \(name.utf8.count) bytes")
                #expect(name.hasSuffix(taken.isEmpty ? " 2026-11-22 10.04.05).pdf" : " 2026-11-22 10.04.05 2).pdf"))
                let shortened = try #require(ConflictName.originalName(of: name))
                #expect(shortened.hasSuffix(".pdf"))
                #expect(stem.hasPrefix(ConflictName.split(shortened).stem))
                #expect(RelativePath.problem(with: name) == nil)
            }
        }
    }

    @Test func anExtensionTooLongToKeepIsShortenedWithTheStem() throws {
        let original = "a." + String(repeating: "x", count: 250)
        let name = Self.copy(original)
        #expect(name.utf8.count == 255)
        #expect(name.hasPrefix("a.xxx"))
        #expect(name.hasSuffix(" (conflict laptop 2026-11-22 10.04.05)"))
        #expect(ConflictName.isConflictCopy(name))
    }

    @Test func aLongDeviceNameIsShortened() {
        let name = Self.copy("a.txt", device: String(repeating: "d", count: 255))
        #expect(name == "a (conflict \(String(repeating: "d", count: ConflictName.maximumDeviceBytes)) 2026-11-22 10.04.05).txt")
    }

    @Test func theWholePathStaysWithin4096Bytes() throws {
        var parent = ""
        while parent.utf8.count + 201 < 4000 { parent += (parent.isEmpty ? "" : "/") + String(repeating: "p", count: 200) }
        parent += "/" + String(repeating: "q", count: 4000 - parent.utf8.count - 1)
        let path = parent + "/" + String(repeating: "n", count: 90) + ".txt"
        #expect(RelativePath.problem(with: path) == nil)
        let copy = Self.copy(path)
        #expect(copy.utf8.count <= 4096)
        #expect(RelativePath.problem(with: copy) == nil)
        #expect(copy.hasPrefix(parent + "/nnn"))
        #expect(ConflictName.isConflictCopy(RelativePath(copy).name))
    }

    @Test(arguments: [
        ("report (conflict laptop 2026-11-22 10.04.05).pdf", "report.pdf"),
        ("report (conflict laptop 2026-11-22 10.04.05 2).pdf", "report.pdf"),
        ("report (conflict laptop 2026-11-22 10.04.05 17)", "report"),
        ("Makefile (conflict desk 2026-01-02 03.04.05)", "Makefile"),
        (".bashrc (conflict desk 2026-01-02 03.04.05)", ".bashrc"),
        ("a.tar (conflict desk 2026-01-02 03.04.05).gz", "a.tar.gz"),
        ("notes (conflict Jane's MacBook 2026-01-02 03.04.05).txt", "notes.txt"),
        ("notes (conflict odd (conflict) name) 2026-01-02 03.04.05).txt", "notes.txt"),
        ("a (conflict x 2026-01-01 00.00.00) (conflict y 2026-01-02 00.00.00).txt", "a (conflict x 2026-01-01 00.00.00).txt"),
        ("report.pdf", nil),
        ("report (conflict).pdf", nil),
        ("report (conflict laptop).pdf", nil),
        ("report (conflict laptop 2026-11-22).pdf", nil),
        ("report (conflict laptop 2026-11-22 10:04:05).pdf", nil),
        ("report (conflict laptop 2026-11-22 10.04.05 x).pdf", nil),
        ("report (conflict laptop 2026-11-22 10.04.05).pdf.bak", nil),
        ("report (conflict  2026-11-22 10.04.05).pdf", nil),  // no device
        ("report (conflict   2026-11-22 10.04.05).pdf", "report.pdf"),  // a device of one space
        ("report(conflict laptop 2026-11-22 10.04.05).pdf", nil),
        ("(conflict laptop 2026-11-22 10.04.05)", nil),
        (" (conflict laptop 2026-11-22 10.04.05)", nil),
        ("report (Conflict laptop 2026-11-22 10.04.05).pdf", nil),
    ] as [(String, String?)])
    func recognisesConflictCopies(name: String, original: String?) {
        #expect(ConflictName.originalName(of: name) == original)
        #expect(ConflictName.isConflictCopy(name) == (original != nil))
    }

    @Test(arguments: ["report.pdf", "Makefile", ".bashrc", "a.tar.gz", "x.", "naïve résumé.txt", "a (b).c",
                      "report (conflict laptop 2026-11-22 10.04.05).pdf", "space .txt", "日本語.文書"])
    func originalNameUndoesCopyPath(name: String) {
        for device in ["laptop", "a b (c)", "x/y", "(conflict ", "", "ü"] {
            for taken in [Set<String>(), [Self.copy(name, device: device)]] {
                let copy = Self.copy(name, device: device, taken: taken)
                #expect(ConflictName.originalName(of: copy) == name, "\(copy)")
            }
        }
    }
}

@testable import DocSyncCore
import Testing

/// The line-wise three-way merge, case by case: each row is an ancestor, the two sides and the
/// expected result (a merged text, or the conflict with the first clash's ancestor lines).
@Suite struct TextMergeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let ancestor: [UInt8]
        let local: [UInt8]
        let remote: [UInt8]
        let expected: TextMergeResult

        init(_ name: String, _ ancestor: String, _ local: String, _ remote: String, _ expected: Expected) {
            self.init(name, Array(ancestor.utf8), Array(local.utf8), Array(remote.utf8), expected)
        }

        init(_ name: String, _ ancestor: [UInt8], _ local: [UInt8], _ remote: [UInt8], _ expected: Expected) {
            self.name = name
            self.ancestor = ancestor
            self.local = local
            self.remote = remote
            self.expected = expected.result
        }

        var testDescription: String { name }
    }

    /// An expected outcome, written compactly.
    enum Expected {
        case text(String)
        case bytes([UInt8])
        case clash(Range<Int>)
        case reason(TextMergeConflict)

        var result: TextMergeResult {
            switch self {
            case .text(let text): return .merged(Array(text.utf8))
            case .bytes(let bytes): return .merged(bytes)
            case .clash(let lines): return .conflict(.overlappingEdits(ancestorLines: lines))
            case .reason(let reason): return .conflict(reason)
            }
        }
    }

    /// Five numbered lines, LF-terminated, and the same with CRLF.
    static let five = "1\n2\n3\n4\n5\n"
    static let fiveCRLF = "1\r\n2\r\n3\r\n4\r\n5\r\n"
    static let bom = "\u{FEFF}"

    static let cases: [Case] = [
        // Trivial cases: one side unchanged, or both the same.
        Case("nothing changed", five, five, five, .text(five)),
        Case("only local changed", five, "1\n2\nthree\n4\n5\n", five, .text("1\n2\nthree\n4\n5\n")),
        Case("only remote changed", five, five, "1\n2\nthree\n4\n5\n", .text("1\n2\nthree\n4\n5\n")),
        Case("both made the same change", five, "1\nX\n3\n4\n5\n", "1\nX\n3\n4\n5\n", .text("1\nX\n3\n4\n5\n")),
        Case("only remote changed, to bytes that are not UTF-8", Array(five.utf8), Array(five.utf8), [0x31, 0x0A, 0xFF, 0x0A],
             .bytes([0x31, 0x0A, 0xFF, 0x0A])),
        Case("only remote added a byte-order mark", five, five, bom + five, .text(bom + five)),
        Case("only local converted to CRLF", five, fiveCRLF, five, .text(fiveCRLF)),
        Case("only remote removed the final newline", five, five, "1\n2\n3\n4\n5", .text("1\n2\n3\n4\n5")),

        // Hunks apart, one line apart, adjacent, overlapping.
        Case("edits at both ends", five, "one\n2\n3\n4\n5\n", "1\n2\n3\n4\nfive\n", .text("one\n2\n3\n4\nfive\n")),
        Case("edits exactly one unchanged line apart", five, "1\nB\n3\n4\n5\n", "1\n2\n3\nD\n5\n",
             .text("1\nB\n3\nD\n5\n")),
        Case("edits on adjacent lines", five, "1\nB\n3\n4\n5\n", "1\n2\nC\n4\n5\n", .clash(1..<3)),
        Case("overlapping multi-line edits", five, "1\nB\nC\n4\n5\n", "1\n2\nc\nd\n5\n", .clash(1..<4)),
        Case("same line changed differently", five, "1\n2\nthree\n4\n5\n", "1\n2\nTHREE\n4\n5\n", .clash(2..<3)),
        Case("one side's hunk inside the other's", five, "1\nB\nC\nD\n5\n", "1\n2\nc\n4\n5\n", .clash(1..<4)),
        Case("a chain of touching hunks is one clash", five, "A\n2\nC\n4\n5\n", "1\nb\n3\nd\n5\n", .clash(0..<4)),
        Case("a clash after a clean merge reports the clash", five, "A\n2\n3\nD\n5\n", "1\n2\n3\n4\nE\n",
             .clash(3..<5)),
        Case("identical change taken once beside a separate edit", five, "1\nX\n3\n4\nY\n", "1\nX\n3\n4\n5\n",
             .text("1\nX\n3\n4\nY\n")),
        Case("identical multi-line change beside separate edits", five, "zero\n1\nX\nY\n4\n5\n",
             "1\nX\nY\n4\nfive\n", .text("zero\n1\nX\nY\n4\nfive\n")),
        Case("identical change that grew on one side clashes", five, "1\nX\n3\n4\n5\n", "1\nX\nx\n3\n4\n5\n",
             .clash(1..<2)),

        // Deletions.
        Case("deletion against an edit of the same line", five, "1\n2\n4\n5\n", "1\n2\nthree\n4\n5\n", .clash(2..<3)),
        Case("deletion against an edit of the next line", five, "1\n2\n4\n5\n", "1\n2\n3\nfour\n5\n", .clash(2..<4)),
        Case("deletion and edit one line apart", five, "1\n3\n4\n5\n", "1\n2\n3\nfour\n5\n", .text("1\n3\nfour\n5\n")),
        Case("deletions one line apart", five, "1\n3\n4\n5\n", "1\n2\n3\n5\n", .text("1\n3\n5\n")),
        Case("deletions of adjacent lines", five, "1\n3\n4\n5\n", "1\n2\n4\n5\n", .clash(1..<3)),
        Case("the same deletion on both sides beside an edit", five, "one\n2\n4\n5\n", "1\n2\n4\n5\n",
             .text("one\n2\n4\n5\n")),
        Case("deletion of the first line and an edit of the last", five, "2\n3\n4\n5\n", "1\n2\n3\n4\nfive\n",
             .text("2\n3\n4\nfive\n")),

        // Insertions.
        Case("insertion at the start, edit at the end", five, "0\n1\n2\n3\n4\n5\n", "1\n2\n3\n4\nfive\n",
             .text("0\n1\n2\n3\n4\nfive\n")),
        Case("insertion at the end, insertion at the start", five, "1\n2\n3\n4\n5\n6\n", "0\n1\n2\n3\n4\n5\n",
             .text("0\n1\n2\n3\n4\n5\n6\n")),
        Case("different insertions at the start", five, "a\n1\n2\n3\n4\n5\n", "b\n1\n2\n3\n4\n5\n", .clash(0..<0)),
        Case("different insertions at the end", five, "1\n2\n3\n4\n5\na\n", "1\n2\n3\n4\n5\nb\n", .clash(5..<5)),
        Case("different insertions at one point in the middle", five, "1\n2\na\n3\n4\n5\n", "1\n2\nb\n3\n4\n5\n",
             .clash(2..<2)),
        Case("identical insertion at the end beside an edit", five, "1\n2\n3\n4\n5\n6\n", "one\n2\n3\n4\n5\n6\n",
             .text("one\n2\n3\n4\n5\n6\n")),
        Case("insertion right before the other side's changed line", five, "1\n2\nnew\n3\n4\n5\n",
             "1\n2\nthree\n4\n5\n", .clash(2..<3)),
        Case("insertion right after the other side's changed line", five, "1\n2\nnew\n3\n4\n5\n",
             "1\ntwo\n3\n4\n5\n", .clash(1..<2)),
        Case("insertion one line after the other side's change", five, "1\n2\n3\nnew\n4\n5\n", "1\ntwo\n3\n4\n5\n",
             .text("1\ntwo\n3\nnew\n4\n5\n")),
        Case("insertions one line apart", five, "1\na\n2\n3\n4\n5\n", "1\n2\nb\n3\n4\n5\n",
             .text("1\na\n2\nb\n3\n4\n5\n")),
        Case("insertion at the start against a change of the first line", five, "0\n1\n2\n3\n4\n5\n",
             "one\n2\n3\n4\n5\n", .clash(0..<1)),
        Case("insertion at the end against a change of the last line", five, "1\n2\n3\n4\n5\n6\n",
             "1\n2\n3\n4\nfive\n", .clash(4..<5)),

        // Repeated lines.
        Case("a run of equal lines edited at both ends", "a\na\na\na\na\n", "X\na\na\na\na\n", "a\na\na\na\nY\n",
             .text("X\na\na\na\nY\n")),
        Case("repeated blocks edited in the first and the last", "{\n}\n{\n}\n{\n}\n", "{\nx\n}\n{\n}\n{\n}\n",
             "{\n}\n{\n}\n{\ny\n}\n", .text("{\nx\n}\n{\n}\n{\ny\n}\n")),
        Case("one of three equal lines deleted, insertion at the start", "x\nx\nx\n", "x\nx\n", "y\nx\nx\nx\n",
             .text("y\nx\nx\n")),
        Case("blank lines between edited paragraphs", "a\n\nb\n\nc\n", "A\n\nb\n\nc\n", "a\n\nb\n\nC\n",
             .text("A\n\nb\n\nC\n")),
        Case("a duplicated line on one side, an edit on the other", five, "1\n1\n2\n3\n4\n5\n", "1\n2\n3\n4\nfive\n",
             .text("1\n1\n2\n3\n4\nfive\n")),

        // CRLF and mixed line endings.
        Case("CRLF file, edits apart", fiveCRLF, "one\r\n2\r\n3\r\n4\r\n5\r\n", "1\r\n2\r\n3\r\n4\r\nfive\r\n",
             .text("one\r\n2\r\n3\r\n4\r\nfive\r\n")),
        Case("CRLF file, adjacent edits", fiveCRLF, "1\r\nB\r\n3\r\n4\r\n5\r\n", "1\r\n2\r\nC\r\n4\r\n5\r\n",
             .clash(1..<3)),
        Case("local converted to CRLF while remote edited", five, fiveCRLF, "1\n2\n3\n4\nfive\n",
             .reason(.lineEndingsChanged)),
        Case("remote converted to LF while local edited", fiveCRLF, "one\r\n2\r\n3\r\n4\r\n5\r\n", five,
             .reason(.lineEndingsChanged)),
        Case("CRLF line added to an LF file while the other side edited", five, "1\n2\n3\n4\n5\n6\r\n",
             "one\n2\n3\n4\n5\n", .reason(.lineEndingsChanged)),
        Case("both converted to CRLF and edited differently", five, "one\r\n2\r\n3\r\n4\r\n5\r\n",
             "1\r\n2\r\n3\r\n4\r\nfive\r\n", .clash(0..<5)),
        Case("mixed endings kept on both sides", "a\r\nb\nc\r\nd\ne\r\n", "A\r\nb\nc\r\nd\ne\r\n",
             "a\r\nb\nc\r\nd\nE\r\n", .text("A\r\nb\nc\r\nd\nE\r\n")),
        Case("CRLF file without a final newline, edits apart", "1\r\n2\r\n3\r\n4", "one\r\n2\r\n3\r\n4",
             "1\r\n2\r\nthree\r\n4", .text("one\r\n2\r\nthree\r\n4")),
        Case("a lone CR is content, not a line break", "a\rb\nc\nd\n", "a\rB\nc\nd\n", "a\rb\nc\nD\n",
             .text("a\rB\nc\nD\n")),
        Case("edits on both sides of a lone CR in one line", "a\rb\rc\n", "A\rb\rc\n", "a\rb\rC\n", .clash(0..<1)),

        // A missing final newline.
        Case("no final newline anywhere, edits apart", "1\n2\n3\n4\n5", "one\n2\n3\n4\n5", "1\n2\n3\n4\nfive",
             .text("one\n2\n3\n4\nfive")),
        Case("local added the final newline, remote edited far away", "1\n2\n3\n4\n5", "1\n2\n3\n4\n5\n",
             "one\n2\n3\n4\n5", .text("one\n2\n3\n4\n5\n")),
        Case("local added the final newline, remote edited the line before", "1\n2\n3\n4\n5", "1\n2\n3\n4\n5\n",
             "1\n2\n3\nfour\n5", .clash(3..<5)),
        Case("local removed the final newline, remote edited far away", five, "1\n2\n3\n4\n5",
             "one\n2\n3\n4\n5\n", .text("one\n2\n3\n4\n5")),
        Case("both added the final newline, edits apart", "1\n2\n3\n4\n5", "one\n2\n3\n4\n5\n", "1\n2\n3\n4\n5\n",
             .text("one\n2\n3\n4\n5\n")),
        Case("line appended after a last line without newline, edit far away", "1\n2\n3\n4\n5",
             "1\n2\n3\n4\n5\n6\n", "one\n2\n3\n4\n5", .text("one\n2\n3\n4\n5\n6\n")),
        Case("both appended after a last line without newline", "1\n2\n3\n4\n5", "1\n2\n3\n4\n5\na\n",
             "1\n2\n3\n4\n5\nb\n", .clash(4..<5)),
        Case("local removed the final newline, remote changed the last line", five, "1\n2\n3\n4\n5",
             "1\n2\n3\n4\nfive\n", .clash(4..<5)),
        Case("only one side ends without a newline, edits apart", five, "one\n2\n3\n4\nfive", "1\n2\nthree\n4\n5\n",
             .text("one\n2\nthree\n4\nfive")),

        // Byte-order mark.
        Case("byte-order mark kept on both sides", bom + five, bom + "one\n2\n3\n4\n5\n", bom + "1\n2\n3\n4\nfive\n",
             .text(bom + "one\n2\n3\n4\nfive\n")),
        Case("local added a byte-order mark while remote edited", five, bom + five, "one\n2\n3\n4\n5\n",
             .reason(.byteOrderMarkChanged)),
        Case("remote removed the byte-order mark while local edited", bom + five, bom + "one\n2\n3\n4\n5\n", five,
             .reason(.byteOrderMarkChanged)),
        Case("both removed the byte-order mark and edited apart", bom + five, "one\n2\n3\n4\n5\n",
             "1\n2\n3\n4\nfive\n", .text("one\n2\n3\n4\nfive\n")),
        Case("byte-order mark and CRLF kept", bom + fiveCRLF, bom + "one\r\n2\r\n3\r\n4\r\n5\r\n",
             bom + "1\r\n2\r\n3\r\n4\r\nfive\r\n", .text(bom + "one\r\n2\r\n3\r\n4\r\nfive\r\n")),
        Case("only a byte-order mark, both sides added lines", bom, bom + "a\n", bom + "b\n", .clash(0..<0)),
        Case("a byte-order mark inside the text is content", "a\n\u{FEFF}b\nc\nd\n", "A\n\u{FEFF}b\nc\nd\n",
             "a\n\u{FEFF}b\nc\nD\n", .text("A\n\u{FEFF}b\nc\nD\n")),

        // Empty ancestor, empty sides.
        Case("empty ancestor, both added different text", "", "a\n", "b\n", .clash(0..<0)),
        Case("empty ancestor, only local added", "", "a\nb\n", "", .text("a\nb\n")),
        Case("empty ancestor, both added the same", "", "a\n", "a\n", .text("a\n")),
        Case("empty ancestor, both added different text without newline", "", "a", "b", .clash(0..<0)),
        Case("local emptied the file while remote edited", five, "", "1\n2\nthree\n4\n5\n", .clash(0..<5)),
        Case("both emptied the file", five, "", "", .text("")),
        Case("local emptied the file, remote unchanged", five, "", five, .text("")),
        Case("one line without newline changed on both sides", "a", "b", "c", .clash(0..<1)),

        // Whole-file replacement.
        Case("local replaced the whole file while remote edited one line", five, "a\nb\nc\n", "1\n2\n3\n4\nfive\n",
             .clash(0..<5)),
        Case("both replaced the whole file differently", five, "a\nb\n", "c\nd\n", .clash(0..<5)),
        Case("local replaced the whole file, remote unchanged", five, "a\nb\nc\n", five, .text("a\nb\nc\n")),

        // Not UTF-8.
        Case("local not UTF-8", Array(five.utf8), [0x31, 0x0A, 0xFF, 0x0A], Array("one\n2\n3\n4\n5\n".utf8),
             .reason(.notUTF8(.local))),
        Case("remote ends in a truncated sequence", Array(five.utf8), Array("one\n2\n3\n4\n5\n".utf8),
             Array("1\n2\n3\n4\n5\n\u{E9}".utf8.dropLast()), .reason(.notUTF8(.remote))),
        Case("ancestor not UTF-8", [0x61, 0x0A, 0xC3, 0x28, 0x0A], Array("b\n".utf8), Array("c\n".utf8),
             .reason(.notUTF8(.ancestor))),
        Case("overlong encoding of NUL", Array(five.utf8), [0x31, 0x0A, 0xC0, 0x80, 0x0A], Array("one\n".utf8),
             .reason(.notUTF8(.local))),
        Case("encoded surrogate", Array(five.utf8), Array("one\n".utf8), [0xED, 0xA0, 0x80, 0x0A],
             .reason(.notUTF8(.remote))),
        Case("Latin-1 text on both sides names the ancestor first", [0xE9, 0x0A], [0xE8, 0x0A], [0xEA, 0x0A],
             .reason(.notUTF8(.ancestor))),

        // Unicode text.
        Case("Unicode lines edited apart", "Grüße\n日本語\n🙂\ne\u{301}\nΩ\n", "Grüße!\n日本語\n🙂\ne\u{301}\nΩ\n",
             "Grüße\n日本語\n🙂\ne\u{301}\nΩmega\n", .text("Grüße!\n日本語\n🙂\ne\u{301}\nΩmega\n")),
        Case("Unicode line changed differently", "Grüße\n日本語\n🙂\n", "Grüße\n日本\n🙂\n", "Grüße\n日本語です\n🙂\n",
             .clash(1..<2)),
        Case("composed and decomposed accents are different lines", "caf\u{E9}\nx\ny\n", "cafe\u{301}\nx\ny\n",
             "caf\u{E9}\nx\nY\n", .text("cafe\u{301}\nx\nY\n")),
        Case("a line separator inside a line is content", "a\u{2028}b\nc\nd\n", "A\u{2028}b\nc\nd\n",
             "a\u{2028}b\nc\nD\n", .text("A\u{2028}b\nc\nD\n")),
        Case("NUL bytes are text", "a\u{0}\nb\nc\n", "A\u{0}\nb\nc\n", "a\u{0}\nb\nC\n", .text("A\u{0}\nb\nC\n")),
    ]

    @Test(arguments: cases)
    func merges(_ row: Case) {
        let result = TextMerge.merge(ancestor: row.ancestor, local: row.local, remote: row.remote)
        #expect(result == row.expected, "\(row.name): got \(Self.show(result))")
    }

    /// Every row also holds with the sides swapped (the merge is symmetric).
    @Test(arguments: cases)
    func mergesWithTheSidesSwapped(_ row: Case) {
        let result = TextMerge.merge(ancestor: row.ancestor, local: row.remote, remote: row.local)
        // The same result, except that a side not in UTF-8 is now the other one.
        let expected: TextMergeResult
        switch row.expected {
        case .conflict(.notUTF8(.local)): expected = .conflict(.notUTF8(.remote))
        case .conflict(.notUTF8(.remote)): expected = .conflict(.notUTF8(.local))
        default: expected = row.expected
        }
        #expect(result == expected, "\(row.name), sides swapped: got \(Self.show(result))")
    }

    @Test func theTableIsLargeAndItsNamesAreUnique() {
        #expect(Self.cases.count >= 60)
        #expect(Set(Self.cases.map(\.name)).count == Self.cases.count)
    }

    @Test func descriptionsReadAsSentences() {
        #expect(TextMergeConflict.overlappingEdits(ancestorLines: 3..<6).description == "both sides changed lines 4–6")
        #expect(TextMergeConflict.overlappingEdits(ancestorLines: 3..<4).description == "both sides changed line 4")
        #expect(TextMergeConflict.overlappingEdits(ancestorLines: 0..<0).description
            == "both sides inserted different lines at the start")
        #expect(TextMergeConflict.overlappingEdits(ancestorLines: 5..<5).description
            == "both sides inserted different lines after line 5")
        #expect(TextMergeConflict.lineEndingsChanged.description
            == "one side changed the line endings while the other edited")
        #expect(TextMergeConflict.byteOrderMarkChanged.description
            == "one side added or removed the byte-order mark while the other edited")
        #expect(TextMergeConflict.notUTF8(.local).description == "the local version is not UTF-8 text")
        #expect(TextMergeConflict.notUTF8(.remote).description == "the remote version is not UTF-8 text")
        #expect(TextMergeConflict.notUTF8(.ancestor).description == "the common ancestor is not UTF-8 text")
    }

    @Test func linesKeepTheirTerminatorsAndTheMarkIsApart() {
        let text = TextLines(Array("\u{FEFF}a\r\nb\nc".utf8))
        #expect(text.hasByteOrderMark)
        #expect(text.count == 3)
        #expect(Array(text.line(0)) == Array("a\r\n".utf8))
        #expect(Array(text.line(1)) == Array("b\n".utf8))
        #expect(Array(text.line(2)) == Array("c".utf8))
        #expect(text.lineEndings == .mixed)
        #expect(TextLines(Array("a\r\nb\r\n".utf8)).lineEndings == .crlf)
        #expect(TextLines(Array("a\nb".utf8)).lineEndings == .lf)
        #expect(TextLines(Array("a\rb".utf8)).lineEndings == .none)
        #expect(TextLines([]).count == 0)
        #expect(TextLines(TextLines.byteOrderMark).count == 0)
    }

    @Test func equalLinesShareAnIDAcrossTexts() {
        var interner = LineInterner()
        let first = interner.ids(of: TextLines(Array("a\nb\na\nb".utf8)))
        let second = interner.ids(of: TextLines(Array("b\na\r\na\n".utf8)))
        #expect(first == [0, 1, 0, 2])
        #expect(second == [1, 3, 0])
    }

    /// A result as text, for failure messages.
    static func show(_ result: TextMergeResult) -> String {
        switch result {
        case .merged(let bytes): return "merged \(String(decoding: bytes, as: UTF8.self).debugDescription)"
        case .conflict(let reason): return "conflict: \(reason)"
        }
    }
}

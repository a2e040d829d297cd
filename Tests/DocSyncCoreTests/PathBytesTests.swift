import DocSyncCore
import Testing

/// SPEC §4a "Paths are bytes": two paths are one only when their UTF-8 bytes are; names
/// that differ only in Unicode normalization (NFC `caf\u{E9}`, NFD `cafe\u{301}`) are two
/// files on Linux, so equality, hashing and order never fold canonical equivalents (as
/// Swift's `String` does).
@Suite struct PathBytesTests {
    struct Pair: Sendable, CustomTestStringConvertible {
        var name: String
        var nfc: String
        var nfd: String
        var testDescription: String { name }
    }

    static let pairs: [Pair] = [
        Pair(name: "a name", nfc: "caf\u{E9}.txt", nfd: "cafe\u{301}.txt"),
        Pair(name: "a folder's name", nfc: "r\u{E9}sum\u{E9}s/cv.pdf", nfd: "re\u{301}sume\u{301}s/cv.pdf"),
        Pair(name: "a deep name", nfc: "a/b/\u{C5}ngstr\u{F6}m", nfd: "a/b/A\u{30A}ngstro\u{308}m"),
        Pair(name: "Hangul syllables and jamo", nfc: "\u{D55C}\u{AE00}", nfd: "\u{1112}\u{1161}\u{11AB}\u{1100}\u{1173}\u{11AF}"),
        // Not NFC and NFD, but canonically equivalent all the same, and as long in bytes.
        Pair(name: "one name composed two ways, as long in bytes", nfc: "\u{1E0A}\u{323}", nfd: "\u{1E0C}\u{307}"),
    ]

    @Test(arguments: pairs)
    func pathsDifferingOnlyInNormalizationAreTwo(_ pair: Pair) {
        let nfc = RelativePath(pair.nfc), nfd = RelativePath(pair.nfd)
        #expect(pair.nfc == pair.nfd, "the strings are canonically equivalent, as Swift compares them")
        #expect(nfc != nfd)
        #expect(Set([nfc, nfd]).count == 2)
        var byPath: [RelativePath: Int] = [:]
        byPath[nfc] = 1
        byPath[nfd] = 2
        #expect(byPath[nfc] == 1 && byPath[nfd] == 2)
        #expect((nfc < nfd) != (nfd < nfc), "one comes first, in byte order")
        #expect((nfc < nfd) == Array(pair.nfc.utf8).lexicographicallyPrecedes(Array(pair.nfd.utf8)))
        #expect(nfc == RelativePath(String(decoding: Array(pair.nfc.utf8), as: UTF8.self)), "the same bytes are the same path")
    }

    @Test func pathsAreOrderedByTheirBytes() {
        let paths = ["b", "a/b", "a", "a b", "a.b", "cafe\u{301}", "caf\u{E9}", "\u{E9}", "Z", "a/\u{E9}"].map { RelativePath($0) }
        let expected = paths.map(\.string).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(paths.sorted().map(\.string).elementsEqual(expected) { Array($0.utf8) == Array($1.utf8) })
        #expect(paths.allSatisfy { a in paths.allSatisfy { b in a.precedesInByteOrder(b) == (a < b) } })
    }

    @Test(arguments: pairs)
    func keysDifferingOnlyInNormalizationAreTwo(_ pair: Pair) {
        let nfc = PathKey(pair.nfc), nfd = PathKey(pair.nfd)
        #expect(nfc != nfd && Set([nfc, nfd]).count == 2)
        #expect((nfc < nfd) != (nfd < nfc))
        #expect(nfc == PathKey(Substring(pair.nfc)) && nfc == PathKey(String(decoding: Array(pair.nfc.utf8), as: UTF8.self)))
    }

    struct Comparison: Sendable, CustomTestStringConvertible {
        var text: String
        var other: String
        var equal: Bool
        var prefix: Bool
        var suffix: Bool
        var precedes: Bool
        var sameOrBeneath: Bool
        var testDescription: String { "\(text.debugDescription) vs \(other.debugDescription)" }
    }

    /// `text` compared with `other` as bytes: equal, has it as prefix and as suffix, comes
    /// before it, is the path itself or lies beneath it.
    static let comparisons: [Comparison] = [
        Comparison(text: "caf\u{E9}", other: "cafe\u{301}", equal: false, prefix: false, suffix: false, precedes: false, sameOrBeneath: false),
        Comparison(text: "cafe\u{301}", other: "caf\u{E9}", equal: false, prefix: false, suffix: false, precedes: true, sameOrBeneath: false),
        Comparison(text: "cafe\u{301}", other: "cafe", equal: false, prefix: true, suffix: false, precedes: false, sameOrBeneath: false),
        Comparison(text: "cafe\u{301}/x", other: "caf\u{E9}", equal: false, prefix: false, suffix: false, precedes: true, sameOrBeneath: false),
        Comparison(text: "caf\u{E9}/x", other: "caf\u{E9}", equal: false, prefix: true, suffix: false, precedes: false, sameOrBeneath: true),
        Comparison(text: "caf\u{E9}", other: "caf\u{E9}", equal: true, prefix: true, suffix: true, precedes: false, sameOrBeneath: true),
        Comparison(text: "caf\u{E9}x", other: "caf\u{E9}", equal: false, prefix: true, suffix: false, precedes: false, sameOrBeneath: false),
        Comparison(text: "a/cafe\u{301}", other: "e\u{301}", equal: false, prefix: false, suffix: true, precedes: true, sameOrBeneath: false),
        Comparison(text: "a/caf\u{E9}", other: "e\u{301}", equal: false, prefix: false, suffix: false, precedes: true, sameOrBeneath: false),
        Comparison(text: "anything", other: "", equal: false, prefix: true, suffix: true, precedes: false, sameOrBeneath: true),
        Comparison(text: "", other: "", equal: true, prefix: true, suffix: true, precedes: false, sameOrBeneath: true),
        Comparison(text: "ab", other: "abc", equal: false, prefix: false, suffix: false, precedes: true, sameOrBeneath: false),
    ]

    @Test(arguments: comparisons)
    func comparedAsBytes(_ row: Comparison) {
        #expect(row.text.bytesEqual(row.other) == row.equal)
        #expect(row.text.hasBytePrefix(row.other) == row.prefix)
        #expect(row.text.hasByteSuffix(row.other) == row.suffix)
        #expect(row.text.bytesPrecede(row.other) == row.precedes)
        #expect(row.text.isSamePathOrBeneath(row.other) == row.sameOrBeneath)
        // Substrings (not contiguous from their start) compare the same way.
        let text = ("-" + row.text).dropFirst(), other = ("-" + row.other).dropFirst()
        #expect(text.bytesEqual(other) == row.equal && text.bytesPrecede(other) == row.precedes && text.hasBytePrefix(other) == row.prefix)
        var hashers = (Hasher(), Hasher())
        row.text.hashBytes(into: &hashers.0)
        text.hashBytes(into: &hashers.1)
        #expect(hashers.0.finalize() == hashers.1.finalize(), "equal bytes, equal hashes")
    }

    @Test func aPathIsBeneathByItsBytes() {
        #expect(RelativePath("caf\u{E9}/x").isBeneath(RelativePath("caf\u{E9}")))
        #expect(!RelativePath("caf\u{E9}/x").isBeneath(RelativePath("cafe\u{301}")))
        #expect(!RelativePath("caf\u{E9}").isBeneath(RelativePath("caf\u{E9}")))
        #expect(RelativePath("caf\u{E9}").isSameOrBeneath(RelativePath("caf\u{E9}")))
        #expect(!RelativePath("caf\u{E9}x").isSameOrBeneath(RelativePath("caf\u{E9}")))
    }

    @Test func zonesRecordsAndLinkTargetsAreBytesToo() {
        // A zone name with a combining mark may be refused; if it is taken, it is another zone.
        if let decomposed = try? ZoneID(validating: "Cafe\u{301}") { #expect(decomposed != ZoneID("Caf\u{E9}")) }
        #expect(ZoneID("Caf\u{E9}") == ZoneID("Caf\u{E9}") && ZoneID("Caf\u{E9}") < ZoneID("Caf\u{E9}s"))
        let zone = ZoneID("Docs")
        func link(_ target: String) -> Record {
            Record(id: RecordID(zone: zone, recordName: "link"), type: .symlink, path: "l", size: Int64(target.utf8.count),
                   modified: Timestamp(nanosecondsSince1970: 0), mode: 0o777, symlinkTarget: target, lastModifiedBy: "d")
        }
        #expect(link("caf\u{E9}") != link("cafe\u{301}"))
        #expect(link("caf\u{E9}") == link("caf\u{E9}"))
    }
}

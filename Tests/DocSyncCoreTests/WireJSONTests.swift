import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// The hand-written JSON of records writes exactly what `JSONEncoder` writes, reads what
/// `JSONDecoder` reads the same way, and hands everything else to `JSONDecoder`.
@Suite struct WireJSONTests {
    /// Text a person may put in a path or a device name: quotes, backslashes, control
    /// characters, slashes, non-ASCII and emoji.
    static let awkward = ["plain", "quote\"d", "back\\slash", "tab\there", "new\nline", "bell\u{7}", "esc\u{1b}[0m", "del\u{7f}",
                          "café", "日本語", "😀", "\u{2028}", "sl/ash", "\u{1f}\u{0b}\u{0c}\u{08}\r"]

    static func awkwardRecord(_ random: inout SeededRandom) -> Record {
        var record = CompactCodingTests.randomRecord(&random)
        let parts = (0..<Int.random(in: 1...3, using: &random)).map { _ in awkward.randomElement(using: &random)!.replacingOccurrences(of: "/", with: "_") }
        record.path = RelativePath(parts.joined(separator: "/"))
        record.lastModifiedBy = awkward.randomElement(using: &random)!
        if record.type == .symlink { record.symlinkTarget = awkward.randomElement(using: &random)! }
        return record
    }

    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test func recordsAreWrittenByteForByteAsJSONEncoderWritesThem() throws {
        var random = SeededRandom(seed: 11)
        for _ in 0..<400 {
            let record = Self.awkwardRecord(&random)
            let fast = try WireCoding.encode(record)
            let reference = try WireCoding.encoder.encode(record)
            #expect(Self.text(fast) == Self.text(reference))
        }
    }

    @Test func recordsAreReadBackByTheFastReader() throws {
        var random = SeededRandom(seed: 12)
        for _ in 0..<400 {
            let record = Self.awkwardRecord(&random)
            let data = try WireCoding.encoder.encode(record)
            let fast = try #require(Self.fastRecord(data), "the fast reader refused \(Self.text(data))")
            #expect(fast == record)
        }
    }

    @Test func integersAtTheEdgesSurviveTheRoundTrip() throws {
        for nanoseconds in [Int64.min, Int64.min + 1, -1, 0, 1, 9, 10, 999_999_999_999, Int64.max - 1, Int64.max] {
            let record = Record(id: RecordID(zone: ZoneID("Z"), recordName: "r"), type: .folder, path: RelativePath("a"),
                                size: nanoseconds < 0 ? 0 : nanoseconds, modified: Timestamp(nanosecondsSince1970: nanoseconds), mode: 0o7777, lastModifiedBy: "d")
            let data = try WireCoding.encode(record)
            #expect(Self.text(data) == Self.text(try WireCoding.encoder.encode(record)))
            #expect(Self.fastRecord(data) == record)
        }
    }

    static let folder = #"{"id":{"recordName":"r1","zone":"Docs"},"lastModifiedBy":"laptop","mode":493,"modified":5,"path":"a\/b","size":0,"type":"Folder"}"#

    /// Spellings `WireJSONWriter` never writes but `JSONDecoder` reads: the fast reader reads them the same.
    @Test(arguments: [
        folder,
        " {\n \"type\" : \"Folder\" ,\"size\":0,\t\"path\":\"a/b\",\"modified\":5,\"mode\":493,\"lastModifiedBy\":\"laptop\",\"id\":{\"zone\":\"Docs\",\"recordName\":\"r1\"}}\r\n",
        #"{"changeTag":null,"asset":null,"contentDigest":null,"symlinkTarget":null,"id":{"recordName":"r1","zone":"Docs"},"lastModifiedBy":"l\u0061ptop","mode":493,"modified":5,"path":"a\/b","size":0,"type":"Folder"}"#,
        #"{"id":{"recordName":"r1","zone":"Docs"},"lastModifiedBy":"\ud83d\ude00 \u00e9\n\"\\\/\b\f\r\t","mode":493,"modified":-5,"path":"a\/b","size":0,"type":"Folder"}"#,
    ])
    func otherSpellingsAreReadAsJSONDecoderReadsThem(_ json: String) throws {
        let data = Data(json.utf8)
        let reference = try WireCoding.decoder.decode(Record.self, from: data)
        #expect(Self.fastRecord(data) == reference)
        #expect(try WireCoding.decode(Record.self, from: data) == reference)
    }

    /// Texts the fast reader was not built for but `JSONDecoder` reads: `WireCoding.decode` still reads them.
    @Test(arguments: [
        folder.replacingOccurrences(of: #""size":0"#, with: #""size":0.0"#),
        folder.replacingOccurrences(of: #""size":0"#, with: #""size":0e3"#),
        folder.replacingOccurrences(of: #""size":0"#, with: #""size":0,"colour":"red""#),
        folder.replacingOccurrences(of: #""size":0"#, with: #""size":0,"size":0"#),
        folder.replacingOccurrences(of: #""Folder"}"#, with: #""Folder",}"#),
    ])
    func textsTheFastReaderRefusesAreReadByJSONDecoder(_ json: String) throws {
        let data = Data(json.utf8)
        #expect(Self.fastRecord(data) == nil)
        #expect(try WireCoding.decode(Record.self, from: data) == WireCoding.decoder.decode(Record.self, from: data))
    }

    /// Texts that are not a valid record (each a change to `folder`): both readers refuse them.
    static let invalid: [String] = {
        let changes: [(String, String)] = [
            ("a\\/b", "..\\/etc"), ("a\\/b", "\\/etc"), ("a\\/b", "a\\u0000b"), ("a\\/b", "a\\ud800b"), ("a\\/b", "a\u{01}b"),
            ("\"r1\"", "\"r/1\""), ("\"Docs\"", "\".hidden\""), ("\"Folder\"", "\"Device\""),
            ("493", "-1"), ("493", "4294967296"), ("493", "0493"), (":5,", ":9223372036854775808,"),
            ("\"size\":0,", ""), ("\"size\":0", "\"size\":null"),
        ]
        let changed: [String] = changes.map { change in
            precondition(folder.contains(change.0))
            return folder.replacingOccurrences(of: change.0, with: change.1)
        }
        return changed + [folder + "x", String(folder.dropLast()), "[" + folder + "]"]
    }()

    @Test(arguments: invalid)
    func invalidTextsAreRefusedByBoth(_ json: String) {
        let data = Data(json.utf8)
        #expect(Self.fastRecord(data) == nil)
        #expect((try? WireCoding.decoder.decode(Record.self, from: data)) == nil)
        #expect((try? WireCoding.decode(Record.self, from: data)) == nil)
    }

    @Test func invalidUTF8IsRefusedByTheFastReader() {
        var bytes = Array(Self.folder.utf8)
        let value = Self.folder.range(of: "laptop")!
        let offset = Self.folder.utf8.distance(from: Self.folder.startIndex, to: value.lowerBound)
        bytes[offset] = 0xff
        #expect(Self.fastRecord(Data(bytes)) == nil)
        #expect((try? WireCoding.decode(Record.self, from: Data(bytes))) == (try? WireCoding.decoder.decode(Record.self, from: Data(bytes))))
    }

    /// Whatever a damaged text becomes, the fast reader either refuses it or reads exactly
    /// what `JSONDecoder` reads from it.
    @Test func damagedTextsAreNeverReadDifferently() throws {
        var random = SeededRandom(seed: 13)
        let alphabet = Array(#"{}[]":,\ 0123456789-.eEnulltruefalse"#.utf8) + [0x00, 0x0a, 0x80, 0xc3, 0xa9]
        var readFast = 0
        for _ in 0..<3000 {
            var bytes = Array(try WireCoding.encode(Self.awkwardRecord(&random)))
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
                default: bytes[at] = alphabet.randomElement(using: &random)!
                }
            }
            let data = Data(bytes)
            guard let fast = Self.fastRecord(data) else { continue }
            readFast += 1
            let reference = try? WireCoding.decoder.decode(Record.self, from: data)
            #expect(reference == fast, "read differently: \(Self.text(data))")
        }
        // Some damage leaves a valid record (a digit changed in a number, a letter in a name).
        #expect(readFast > 0)
    }

    static func fastRecord(_ data: Data) -> Record? { Record.fromWireJSON(data) }
}

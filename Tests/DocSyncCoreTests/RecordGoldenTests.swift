import DocSyncCore
import Foundation
import Testing

/// The two encodings of a record, pinned byte for byte (Fixtures/record-NAME.json and
/// .compact): the index, both stores and every peer read what was written by earlier
/// releases, so a change to these bytes is a change of format, never a side effect.
@Suite struct RecordGoldenTests {
    enum Encoding: String, CaseIterable, Sendable {
        case json, compact

        func encode(_ record: Record) throws -> Data {
            switch self {
            case .json: try WireCoding.encode(record)
            case .compact: CompactCoding.encode(record)
            }
        }

        func decode(_ data: Data) throws -> Record {
            switch self {
            case .json: try WireCoding.decode(Record.self, from: data)
            case .compact: try CompactCoding.decodeRecord(data)
            }
        }
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func golden(_ name: String, _ encoding: Encoding) throws -> Data {
        try Data(contentsOf: fixtures.appendingPathComponent("record-\(name).\(encoding.rawValue)"))
    }

    static let cases: [(String, Encoding)] = RecordFixtures.all.flatMap { fixture in Encoding.allCases.map { (fixture.name, $0) } }

    static func record(_ name: String) throws -> Record { try #require(RecordFixtures.all.first { $0.name == name }).record }

    /// The bytes of a record's strings, which `==` on `String` would not tell apart
    /// (canonically equivalent names compare equal).
    static func stringBytes(_ record: Record) -> [[UInt8]] {
        [record.path.string, record.symlinkTarget ?? "", record.lastModifiedBy, record.changeTag?.rawValue ?? "",
         record.id.recordName, record.id.zone.name, record.lastEditorName ?? ""].map { Array($0.utf8) }
    }

    @Test(arguments: cases)
    func encodingGivesTheGoldenBytes(name: String, encoding: Encoding) throws {
        let encoded = try encoding.encode(try Self.record(name))
        let golden = try Self.golden(name, encoding)
        #expect(encoded == golden, "record-\(name).\(encoding.rawValue) differs: \(String(decoding: encoded, as: UTF8.self).debugDescription)")
    }

    @Test(arguments: cases)
    func theGoldenBytesDecodeToTheRecordByteForByte(name: String, encoding: Encoding) throws {
        let record = try Self.record(name)
        let decoded = try encoding.decode(try Self.golden(name, encoding))
        #expect(decoded == record)
        #expect(Self.stringBytes(decoded) == Self.stringBytes(record), "names keep their bytes (no normalization)")
        #expect(try encoding.encode(decoded) == Self.golden(name, encoding))
    }

    /// `JSONEncoder` and `JSONDecoder` (the `Codable` conformance, for records inside values
    /// not written by hand) follow the same field list: the same bytes, the same record.
    @Test(arguments: RecordFixtures.all.map(\.name))
    func codableGivesTheSameJSON(name: String) throws {
        let golden = try Self.golden(name, .json)
        #expect(try WireCoding.encoder.encode(try Self.record(name)) == golden)
        let decoded = try WireCoding.decoder.decode(Record.self, from: golden)
        #expect(decoded == (try Self.record(name)))
        #expect(Self.stringBytes(decoded) == Self.stringBytes(try Self.record(name)))
    }

    @Test(arguments: RecordFixtures.all.map(\.name))
    func fixturesAreValidRecords(name: String) throws {
        try Self.record(name).validate()
    }

    /// Every file under Fixtures/ is some fixture's: none is left behind by a renamed one.
    @Test func everyGoldenFileBelongsToAFixture() throws {
        let expected = Set(Self.cases.map { "record-\($0.0).\($0.1.rawValue)" })
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).filter { $0.hasPrefix("record-") })
        #expect(present == expected)
    }

    /// Each optional field is absent from at least one fixture and present in another, and
    /// each record type has one: the fixtures cover the field list.
    @Test func theFixturesCoverEveryOptionalFieldAndType() throws {
        for field in Record.Field.allCases where field.isOptional {
            let presence = try RecordFixtures.all.map { fixture in
                let object = try #require(try JSONSerialization.jsonObject(with: Self.golden(fixture.name, .json)) as? [String: Any])
                return object[field.stringValue] != nil
            }
            #expect(presence.contains(true) && presence.contains(false), "\(field.stringValue)")
        }
        #expect(Set(RecordFixtures.all.map(\.record.type)) == Set(RecordType.allCases))
    }
}

import DocSyncCore
import Foundation
import Testing

/// `openapi.yaml` describes the record the codecs write: its `Record` schema has exactly
/// the properties of `Record.Field`, and requires exactly those that are not optional.
@Suite struct OpenAPIRecordSchemaTests {
    static let specification = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/DocSyncServer/openapi.yaml")

    /// The property names and the required list of the schema `name` under
    /// `components.schemas`, read from the YAML by indentation (the file's own layout:
    /// `required: [a, b]` on one line, one property per line).
    static func schema(_ name: String, in yaml: String) throws -> (properties: [String], required: [String]) {
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func indentation(_ line: String) -> Int { line.prefix { $0 == " " }.count }
        let start = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "\(name):" && indentation($0) == 4 },
                                 "openapi.yaml has no schema \(name)")
        var properties: [String] = [], required: [String] = []
        var inProperties = false
        for line in lines[(start + 1)...] {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let depth = indentation(line)
            if depth <= 4 { break }
            if depth == 6 {
                inProperties = trimmed == "properties:"
                if trimmed.hasPrefix("required:") {
                    let list = trimmed.dropFirst("required:".count).trimmingCharacters(in: CharacterSet(charactersIn: " []"))
                    required = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                }
            } else if inProperties, depth == 8, let colon = trimmed.firstIndex(of: ":") {
                properties.append(String(trimmed[..<colon]))
            }
        }
        return (properties, required)
    }

    @Test func theRecordSchemaListsTheRecordFields() throws {
        let schema = try Self.schema("Record", in: try String(contentsOf: Self.specification, encoding: .utf8))
        let fields = Record.Field.allCases
        #expect(Set(schema.properties) == Set(fields.map(\.stringValue)), "openapi.yaml Record properties")
        #expect(schema.properties.count == fields.count, "no property twice")
        #expect(Set(schema.required) == Set(fields.filter { !$0.isOptional }.map(\.stringValue)), "openapi.yaml Record required")
    }

    /// The reader itself, on a schema written the way the file writes them.
    @Test func theSchemaReaderReadsPropertiesAndRequired() throws {
        let yaml = """
            components:
              schemas:
                Other:
                  type: object
                  required: [x]
                  properties:
                    x: { type: string }
                Thing:
                  type: object
                  required: [a, b]
                  properties:
                    a: { type: string }
                    b:
                      type: object
                      properties:
                        nested: { type: string }
                    c: { $ref: "#/components/schemas/Other" }
                Next:
                  type: object
            """
        let thing = try Self.schema("Thing", in: yaml)
        #expect(thing.properties == ["a", "b", "c"])
        #expect(thing.required == ["a", "b"])
    }
}

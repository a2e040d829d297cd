import DocSyncCore
@testable import DocSyncEngine
import Testing

/// A merged JSON, YAML or TOML file that no longer parses is not kept (SPEC §4).
@Suite("Structured text after a merge")
struct StructuredTextCheckTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var path: String
        var local: String
        var remote: String
        var merged: String
        /// Whether the merge is refused.
        var refused: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "valid JSON", path: "a.json", local: "{\"a\": 1}", remote: "{\"b\": 2}", merged: "{\"a\": 1, \"b\": 2}", refused: false),
        Case(name: "JSON missing a comma", path: "a.json", local: "{\"a\": 1}", remote: "{\"b\": 2}", merged: "{\"a\": 1\n\"b\": 2}", refused: true),
        Case(name: "JSON with a trailing comma", path: "a.json", local: "[1, 2]", remote: "[1]", merged: "[1, 2,]", refused: true),
        Case(name: "JSON object with a trailing comma", path: "a.json", local: "{}", remote: "{}", merged: "{\"a\": 1,\n}", refused: true),
        Case(name: "JSON string holding a comma and a bracket", path: "a.json", local: "{}", remote: "{}", merged: "{\"a\": \"x,]\", \"b\": \"\\\",}\"}", refused: false),
        Case(name: "JSON, extension in capitals", path: "A.JSON", local: "[1]", remote: "[2]", merged: "[1", refused: true),
        Case(name: "JSON inputs already broken: no promise to keep", path: "a.json", local: "{", remote: "[1]", merged: "{[", refused: false),
        Case(name: "valid YAML", path: "c.yaml", local: "a: 1\n", remote: "b: 2\n", merged: "a: 1\nb: 2\n", refused: false),
        Case(name: "YAML with a bad indentation", path: "c.yml", local: "a:\n  x: 1\n", remote: "b: 2\n", merged: "a: 1\n  x: 1\n", refused: true),
        Case(name: "YAML stream of documents", path: "c.yaml", local: "a: 1\n---\nb: 2\n", remote: "a: 1\n", merged: "a: 1\n---\nb: [\n", refused: true),
        Case(name: "valid TOML", path: "d.toml", local: "a = 1\n", remote: "b = 2\n", merged: "a = 1\nb = 2\n", refused: false),
        Case(name: "TOML with a key twice", path: "d.toml", local: "a = 1\n", remote: "a = 2\n", merged: "a = 1\na = 2\n", refused: true),
        Case(name: "not a checked format", path: "notes.md", local: "{", remote: "[", merged: "{[", refused: false),
        Case(name: "no extension", path: "Makefile", local: "a", remote: "b", merged: "{", refused: false),
    ]

    @Test(arguments: cases)
    func mergedStructuredText(_ example: Case) throws {
        let problem = StructuredTextCheck.problem(
            merged: Array(example.merged.utf8), local: Array(example.local.utf8), remote: Array(example.remote.utf8),
            at: try example.path.asRelativePath())
        #expect((problem != nil) == example.refused, "\(problem ?? "kept")")
    }
}

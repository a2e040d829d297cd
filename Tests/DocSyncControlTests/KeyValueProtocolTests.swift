import DocSyncControl
import DocSyncCore
import Foundation
import Testing

/// The key-value calls on the control socket, byte for byte as the README documents them
/// for programs: a request line, and the answers a program reads back.
@Suite struct KeyValueProtocolTests {
    static let store = KeyValueStoreID("org.example.editor")

    static func line(_ value: some Encodable) throws -> String {
        String(decoding: try ControlFraming.makeEncoder().encode(value), as: UTF8.self)
    }

    static func read<T: Decodable>(_ type: T.Type, _ line: String) throws -> T {
        try ControlFraming.makeDecoder().decode(T.self, from: Data(line.utf8))
    }

    @Test func requestsAreTheDocumentedLines() throws {
        let documented: [(ControlRequest, String)] = [
            (.keyValueSet(store: Self.store, key: KeyValueKey("theme"), value: .object(["name": .string("dark")])),
             #"{"keyValueSet":{"key":"theme","store":"org.example.editor","value":{"name":"dark"}}}"#),
            (.keyValueGet(store: Self.store, key: KeyValueKey("theme")), #"{"keyValueGet":{"key":"theme","store":"org.example.editor"}}"#),
            (.keyValueRemove(store: Self.store, key: KeyValueKey("theme")), #"{"keyValueRemove":{"key":"theme","store":"org.example.editor"}}"#),
            (.keyValueList(store: Self.store), #"{"keyValueList":{"store":"org.example.editor"}}"#),
            (.keyValueWatch(store: Self.store, since: 7), #"{"keyValueWatch":{"since":7,"store":"org.example.editor"}}"#),
        ]
        for (request, text) in documented {
            #expect(try Self.line(request) == text)
            #expect(try Self.read(ControlRequest.self, text) == request, "a program's line reads as the call")
        }
        #expect(try Self.read(ControlRequest.self, #"{"keyValueWatch":{"store":"org.example.editor"}}"#) == .keyValueWatch(store: Self.store, since: nil))
        // A bad store id or key does not decode: the server answers badRequest.
        #expect(throws: (any Error).self) { try Self.read(ControlRequest.self, #"{"keyValueList":{"store":"~bad"}}"#) }
        #expect(throws: (any Error).self) { try Self.read(ControlRequest.self, #"{"keyValueGet":{"key":"","store":"org.example.editor"}}"#) }
    }

    @Test func answersAreTheDocumentedLines() throws {
        let change = KeyValueChange(store: Self.store, sequence: 7, reason: .serverChange, keys: ["theme"])
        let documented: [(ControlResponse, String, Bool)] = [
            (.keyValue(store: Self.store, key: KeyValueKey("theme"), value: .number(14)), #"{"keyValue":{"key":"theme","store":"org.example.editor","value":14}}"#, true),
            (.keyValue(store: Self.store, key: KeyValueKey("theme"), value: nil), #"{"keyValue":{"key":"theme","store":"org.example.editor"}}"#, true),
            (.keyValues(store: Self.store, values: ["size": .number(14), "theme": .object(["name": .string("dark")])]),
             #"{"keyValues":{"store":"org.example.editor","values":{"size":14,"theme":{"name":"dark"}}}}"#, true),
            (.keyValueWatching(store: Self.store, after: 6), #"{"keyValueWatching":{"after":6,"store":"org.example.editor"}}"#, false),
            (.keyValueChange(change: change),
             #"{"keyValueChange":{"change":{"keys":["theme"],"reason":"serverChange","sequence":7,"store":"org.example.editor"}}}"#, false),
        ]
        for (response, text, isFinal) in documented {
            #expect(try Self.line(response) == text)
            #expect(try Self.read(ControlResponse.self, text) == response)
            #expect(response.isFinal == isFinal, "\(text)")
        }
    }
}

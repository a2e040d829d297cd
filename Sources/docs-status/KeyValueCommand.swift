import ArgumentParser
import DocSyncControl
import DocSyncCore
import Foundation

/// `docs-status kv`: a key-value store of the account (SPEC §12), as programs use it.
struct KeyValueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kv",
        abstract: "Read, write and watch a key-value store (small settings synced across the account's devices).",
        discussion: """
            A store is named by --store ID (like org.example.editor). Keys are at most 64 \
            bytes; values are JSON (a string in quotes, a number, true or false, an array, an \
            object). A store holds at most 1,024 keys and 1,000,000 bytes of values, a value \
            at most 1,000,000 bytes. A write is kept here at once and sent when the backend \
            can be reached; for each key the last write to reach the server wins on every \
            device.

            \(KeyValueExit.help)
            """,
        subcommands: [KeyValueSetCommand.self, KeyValueGetCommand.self, KeyValueRemoveCommand.self,
                      KeyValueListCommand.self, KeyValueWatchCommand.self]
    )

    /// The call names under `kv`, for `SharedOptionPlacement`.
    static var callNames: Set<String> { Set(configuration.subcommands.compactMap { $0.configuration.commandName }) }
}

/// `--store ID`, which every `kv` call takes.
struct KeyValueStoreOption: ParsableArguments {
    @Option(help: ArgumentHelp("The store (like org.example.editor).", valueName: "id"))
    var store: String

    func validate() throws {
        if let problem = KeyValueStoreID.problem(with: store) { throw ValidationError("--store \(store.debugDescription) \(problem)") }
    }

    var id: KeyValueStoreID { KeyValueStoreID(store) }
}

/// The exit codes `kv` adds to `DocsStatusExit`.
enum KeyValueExit {
    /// `kv get` of a key the store does not hold.
    static let noSuchKey = ExitCode(6)

    static let help = """
        Exit codes: 0 ok; 1 failure (a write over a limit is refused, nothing changed; the \
        daemon answered an error); 2 usage (bad key, store id or JSON); 3 docsyncd is not \
        running; 6 kv get: the store holds no such key.
        """
}

/// A key argument, checked before anything is sent.
func validKey(_ key: String) throws -> KeyValueKey {
    do { return try KeyValueKey(validating: key) } catch { throw ValidationError(error.message) }
}

/// `docs-status kv set KEY JSON --store ID`.
struct KeyValueSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Write a JSON value to a key.",
        discussion: "JSON is one value: '\"dark\"', 14, true, '[1,2]', '{\"size\":14}'. null is no value: remove the key instead.\n\n\(KeyValueExit.help)")

    @Argument(help: "The key (at most 64 bytes).") var key: String
    @Argument(help: ArgumentHelp("The value, as JSON.", valueName: "json")) var json: String
    @OptionGroup var store: KeyValueStoreOption
    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        _ = try validKey(key)
        do {
            if try JSONValue(parsing: json) == .null { throw ValidationError("null is no value; to remove the key, run docs-status kv remove KEY --store ID") }
        } catch let error as SyncError {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        let (_, _, value) = try await options.answer(.keyValueSet(store: store.id, key: try validKey(key), value: try JSONValue(parsing: json)), \.keyValueAnswer)
        if options.json { Output.json(KeyValueReport(store: store.id, key: key, value: value)) }
    }
}

/// `docs-status kv get KEY --store ID`: the value, as JSON; exit 6 when there is none.
struct KeyValueGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get", abstract: "Print a key's value as JSON (exit 6 when the store holds no such key).",
        discussion: KeyValueExit.help)

    @Argument(help: "The key.") var key: String
    @OptionGroup var store: KeyValueStoreOption
    @OptionGroup var options: ConnectionOptions

    func validate() throws { _ = try validKey(key) }

    func run() async throws {
        let (_, _, value) = try await options.answer(.keyValueGet(store: store.id, key: try validKey(key)), \.keyValueAnswer)
        if options.json {
            Output.json(KeyValueReport(store: store.id, key: key, value: value))
        } else if let value {
            Output.line(value.text)
        }
        if value == nil {
            if !options.json { Output.error("\(store.id) holds no key \(key.debugDescription)") }
            throw KeyValueExit.noSuchKey
        }
    }
}

/// `docs-status kv remove KEY --store ID`: removing a key the store does not hold is done too.
struct KeyValueRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a key (done too when the store holds no such key).", discussion: KeyValueExit.help)

    @Argument(help: "The key.") var key: String
    @OptionGroup var store: KeyValueStoreOption
    @OptionGroup var options: ConnectionOptions

    func validate() throws { _ = try validKey(key) }

    func run() async throws {
        _ = try await options.answer(.keyValueRemove(store: store.id, key: try validKey(key)), \.keyValueAnswer)
        if options.json { Output.json(KeyValueReport(store: store.id, key: key, value: nil)) }
    }
}

/// `docs-status kv list --store ID`: `KEY JSON` lines sorted by key; `--json`: one object.
struct KeyValueListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Print every key and its value.", discussion: KeyValueExit.help)

    @OptionGroup var store: KeyValueStoreOption
    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let (_, values) = try await options.answer(.keyValueList(store: store.id), \.keyValueList)
        if options.json {
            Output.json(["store": JSONValue.string(store.id.name), "values": JSONValue.object(values)])
            return
        }
        Output.lines(values.keys.sorted { $0.bytesPrecede($1) }.map { "\($0) \(values[$0]!.text)" })
    }
}

/// What `kv set`, `get` and `remove` print with `--json`.
struct KeyValueReport: Encodable {
    let store: KeyValueStoreID
    let key: String
    let value: JSONValue?
}

extension ControlResponse {
    var keyValueAnswer: (KeyValueStoreID, KeyValueKey, JSONValue?)? {
        if case .keyValue(let store, let key, let value) = self { (store, key, value) } else { nil }
    }

    var keyValueList: (KeyValueStoreID, [String: JSONValue])? {
        if case .keyValues(let store, let values) = self { (store, values) } else { nil }
    }
}

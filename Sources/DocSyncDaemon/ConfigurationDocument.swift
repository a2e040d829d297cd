import TOMLKit

/// A parsed docsync.toml with what is needed to blame a key: the file's name and the line
/// of every key. Reads typed values and makes `ConfigurationError`s naming key and line.
struct ConfigurationDocument {
    let source: String
    let root: TOMLTable
    private let locator: TOMLKeyLocator

    /// Parses `text`; a syntax error names its line.
    init(text: String, source: String) throws(ConfigurationError) {
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigurationError(.syntax, source: source, line: error.source.begin.line, message: Self.syntaxMessage(error))
        } catch {
            throw ConfigurationError(.syntax, source: source, message: "not valid TOML: \(error)")
        }
        self.source = source
        locator = TOMLKeyLocator(source: text)
    }

    func error(_ kind: ConfigurationError.Kind, at path: TOMLKeyPath, _ message: String) -> ConfigurationError {
        ConfigurationError(kind, source: source, line: locator.line(of: path), key: path.description, message: message)
    }

    /// Throws `.unknownKey` for the first key of `table` (in file order) not in `allowed`.
    func checkKeys(of table: TOMLTable, at path: TOMLKeyPath, allowed: [String]) throws(ConfigurationError) {
        let unknown = table.keys.filter { !allowed.contains($0) }
            .map { (key: $0, line: locator.line(of: path.appending($0)) ?? Int.max) }
            .min { ($0.line, $0.key) < ($1.line, $1.key) }
        guard let unknown else { return }
        let hint: String
        if let suggestion = Self.closest(to: unknown.key, in: allowed) {
            hint = "did you mean \(suggestion)?"
        } else {
            hint = "the keys here are \(allowed.joined(separator: ", "))"
        }
        throw error(.unknownKey, at: path.appending(unknown.key), "unknown key; \(hint)")
    }

    /// The value of `key`, or `nil` when absent.
    func value(_ table: TOMLTable, _ key: String) -> (any TOMLValueConvertible)? { table[key] }

    func string(_ table: TOMLTable, _ key: String, at parent: TOMLKeyPath) throws(ConfigurationError) -> String? {
        guard let value = table[key] else { return nil }
        guard let string = value.string else { throw typeError(value, expected: "a string", at: parent.appending(key)) }
        return string
    }

    func integer(_ table: TOMLTable, _ key: String, at parent: TOMLKeyPath) throws(ConfigurationError) -> Int? {
        guard let value = table[key] else { return nil }
        guard value.type == .int, let integer = value.int else { throw typeError(value, expected: "an integer", at: parent.appending(key)) }
        return integer
    }

    func table(_ table: TOMLTable, _ key: String, at parent: TOMLKeyPath) throws(ConfigurationError) -> TOMLTable? {
        guard let value = table[key] else { return nil }
        guard let nested = value.table else { throw typeError(value, expected: "a table ([\(key)])", at: parent.appending(key)) }
        return nested
    }

    func typeError(_ value: any TOMLValueConvertible, expected: String, at path: TOMLKeyPath) -> ConfigurationError {
        error(.invalidValue, at: path, "expected \(expected), found \(Self.describe(value))")
    }

    /// "a string (\"30\")", "an integer (30)", "a table".
    static func describe(_ value: any TOMLValueConvertible) -> String {
        switch value.type {
        case .string: "a string (\(value.string.map(quoted) ?? ""))"
        case .int: "an integer (\(value.int.map(String.init) ?? ""))"
        case .double: "a floating-point number (\(value.double.map { String($0) } ?? ""))"
        case .bool: "a boolean (\(value.bool.map(String.init) ?? ""))"
        case .table: "a table"
        case .array: "an array"
        case .date: "a date"
        case .time: "a time"
        case .dateTime: "a date-time"
        }
    }

    /// toml++'s message without its own position suffix, starting in lower case.
    private static func syntaxMessage(_ error: TOMLParseError) -> String {
        var message = error.description
        if message.hasPrefix("Error while parsing ") {
            message = "error while parsing " + message.dropFirst("Error while parsing ".count)
        }
        return message + " (column \(error.source.begin.column))"
    }

    /// The allowed key within edit distance 2 of `key`, if exactly one is closest.
    private static func closest(to key: String, in allowed: [String]) -> String? {
        let scored = allowed.map { (candidate: $0, distance: editDistance(key.lowercased(), $0)) }
            .filter { $0.distance <= 2 }
            .sorted { $0.distance < $1.distance }
        guard let best = scored.first, scored.dropFirst().first?.distance != best.distance else { return nil }
        return best.candidate
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = row
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}

import DocSyncCore
import Foundation

/// `store.toml`, the embedded store's settings in its own directory (SPEC §10).
///
/// The file holds `key = value` lines of `StoreSettings.keys`, each value a duration in
/// quotes (`deleted_retention = "30d"`) or a bare number of seconds, with `#` comments and
/// blank lines: a flat subset of TOML, read without a TOML library. An unknown key, a value
/// that is not a duration, a key given twice or anything else is `invalidArguments` naming
/// the file, the line and the key. A missing file means every default; a new store gets
/// one with every key commented out, so a person finds where the settings go.
public enum StoreSettingsFile {
    public static let name = "store.toml"

    /// The settings of the store in `directory`: its `store.toml`, defaults for what it
    /// does not set.
    public static func read(in directory: URL) throws(SyncError) -> StoreSettings {
        let path = directory.appendingPathComponent(name).path
        guard FileManager.default.fileExists(atPath: path) else { return StoreSettings() }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw SyncError(.invalidArguments, "cannot read the store's settings \(path): \(error.localizedDescription); fix its permissions or remove it")
        }
        return try parse(text, source: path)
    }

    /// The settings `text` sets; `source` names it in errors.
    public static func parse(_ text: String, source: String) throws(SyncError) -> StoreSettings {
        var settings = StoreSettings()
        var seen = Set<String>()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let place = "\(source):\(index + 1)"
            let line = withoutComment(rawLine).trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw SyncError(.invalidArguments, "\(place): \(line.prefix(60).debugDescription) is not `key = value`; the keys are \(StoreSettings.keys.joined(separator: ", "))")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            } else if !value.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) || value.isEmpty {
                throw SyncError(.invalidArguments, "\(place): \(key) must be a duration in quotes, such as \"30d\", or a number of seconds")
            }
            guard seen.insert(key).inserted else {
                throw SyncError(.invalidArguments, "\(place): \(key) is set twice; keep one line")
            }
            if let problem = settings.set(key, to: value) {
                throw SyncError(.invalidArguments, "\(place): \(problem)")
            }
        }
        return settings
    }

    /// The line up to a `#` that is not inside quotes.
    private static func withoutComment(_ line: Substring) -> String {
        var quoted = false
        for index in line.indices {
            if line[index] == "\"" { quoted.toggle() }
            if line[index] == "#", !quoted { return String(line[..<index]) }
        }
        return String(line)
    }

    /// What a new store's `store.toml` says: every key, commented out, with its default.
    public static let template = """
        # Settings of this docsync store (the embedded backend, file://). Every daemon that
        # opens the directory reads them; durations are a number and a unit: s, m, h, d, w.

        # How long a deleted file stays in Recently Deleted, and a version a save replaced stays
        # kept, with their content (docs-status deleted / recover).
        # deleted_retention = "30d"

        # How often unreferenced chunks are collected while a daemon has the store open
        # ("0" turns the schedule off; collections then happen only after a purge).
        # gc_interval = "1d"

        # How long a stored chunk is safe from collection before a record names it: covers
        # uploads in flight.
        # gc_grace = "1h"

        """

    /// Writes `template` to the store in `directory` unless a `store.toml` is there; a
    /// failure is only logged by the caller (the defaults apply without the file).
    static func createTemplate(in directory: URL) -> Bool {
        let path = directory.appendingPathComponent(name).path
        guard !FileManager.default.fileExists(atPath: path) else { return true }
        return FileManager.default.createFile(atPath: path, contents: Data(template.utf8))
    }
}

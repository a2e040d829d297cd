import DocSyncCore
import Foundation
import TOMLKit
import Yams

/// Whether a line-wise merge of a structured file (JSON, YAML, TOML, by its extension) still
/// parses (SPEC §4): lines from two sides can each be right and together wrong (a comma, a
/// duplicate key), and such a result is not kept — the conflict copy is made instead.
enum StructuredTextCheck {
    /// The formats checked, by lower-case extension.
    enum Format: String {
        case json, yaml, toml

        init?(of path: RelativePath) {
            switch ConflictName.split(path.name).ext.lowercased() {
            case ".json": self = .json
            case ".yaml", ".yml": self = .yaml
            case ".toml": self = .toml
            default: return nil
            }
        }
    }

    /// Why `merged` is not kept at `path`, or nil when it is fine: a file of a checked format
    /// that no longer parses while both inputs did. (Inputs that did not parse already make
    /// no promise a merge could break; other formats are not checked.)
    static func problem(merged: [UInt8], local: [UInt8], remote: [UInt8], at path: RelativePath) -> String? {
        guard let format = Format(of: path) else { return nil }
        guard parses(local, as: format), parses(remote, as: format) else { return nil }
        return parses(merged, as: format) ? nil : "the merged \(format.rawValue.uppercased()) no longer parses"
    }

    /// True when `bytes` parse as `format` (UTF-8 text; every YAML document of a stream).
    static func parses(_ bytes: [UInt8], as format: Format) -> Bool {
        switch format {
        case .json:
            // Foundation's parser takes a comma before `]` or `}`, which JSON does not (and
            // which a merge easily makes): refused here first.
            return !hasTrailingComma(bytes)
                && (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil
        case .yaml:
            guard let text = String(validating: bytes, as: UTF8.self) else { return false }
            do {
                let parser = try Parser(yaml: text)
                while try parser.nextRoot() != nil {}
                return true
            } catch {
                return false
            }
        case .toml:
            guard let text = String(validating: bytes, as: UTF8.self) else { return false }
            return (try? TOMLTable(string: text)) != nil
        }
    }

    /// True when a `,` outside strings is followed (past white space) by `]` or `}`.
    static func hasTrailingComma(_ bytes: [UInt8]) -> Bool {
        var inString = false, escaped = false, afterComma = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): continue
            case UInt8(ascii: "]"), UInt8(ascii: "}"): if afterComma { return true }
            case UInt8(ascii: "\""): inString = true
            default: break
            }
            afterComma = byte == UInt8(ascii: ",")
        }
        return false
    }
}

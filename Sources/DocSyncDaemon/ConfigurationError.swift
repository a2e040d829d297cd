/// A configuration the daemon cannot run with: where the problem is and what it is.
///
/// `description` is one line a person can act on, in the form compilers use:
/// `docsync.toml:7: folders[0].mode: "mirorr" is not one of mirror, on-demand, send-only, receive-only`.
/// Flag problems name the flag instead (`--backend: …`).
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The file could not be read.
        case unreadableFile
        /// No `--config`, no `--folder`, and no file at the default path.
        case noConfiguration
        /// The file is not valid TOML.
        case syntax
        /// A key docsync does not know (often a typo).
        case unknownKey
        /// A value of the wrong type, or out of its range.
        case invalidValue
        /// A required key is absent (`backend.url`, a folder's `id` or `path`, any folder at all).
        case missingKey
        /// Two folders with the same id.
        case duplicateFolderID
        /// Two folders with the same path, or one inside the other.
        case overlappingFolders
    }

    public var kind: Kind
    /// The configuration file as it was named, or `nil` for a flag.
    public var source: String?
    /// 1-based line in `source`, when known.
    public var line: Int?
    /// The key (`folders[0].mode`) or flag (`--backend`) at fault, when there is one.
    public var key: String?
    /// What is wrong and, where it helps, what to write instead.
    public var message: String

    public init(_ kind: Kind, source: String? = nil, line: Int? = nil, key: String? = nil, message: String) {
        self.kind = kind
        self.source = source
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        var text = ""
        if let source {
            text += source
            if let line { text += ":\(line)" }
            text += ": "
        }
        if let key { text += "\(key): " }
        return text + message
    }
}

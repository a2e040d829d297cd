/// Which items of a folder are not synced (SPEC §9): the defaults, plus the glob lines of the
/// folder's `.docsyncignore` file.
///
/// An item is ignored when its own name or path matches a rule, or when any of its ancestor
/// directories is ignored (so everything inside a `.nosync` folder is ignored). Matching is
/// case-sensitive, like Linux file names. Pure: the caller reads the ignore file.
///
/// `.docsyncignore` syntax: one glob (see `GlobPattern`) per line; blank lines and lines
/// starting with `#` are skipped; trailing spaces (and a trailing `\r`) are trimmed unless
/// escaped with `\`; `\#` starts a pattern with a literal `#`. A pattern without `/` matches a
/// name at any depth; a pattern with `/` matches the path from the folder root (a leading `/`
/// is allowed and stripped; `*` then stays within one component, and a `**` component matches
/// any number of components); a trailing `/` makes the rule match directories only.
/// Negation (`!pattern`) is not supported: such a line is reported and skipped.
public struct IgnoreRules: Sendable {
    /// A line of an ignore file that was skipped, and why.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// 1-based line number in the ignore file.
        public var line: Int
        public var message: String

        public init(line: Int, message: String) {
            self.line = line
            self.message = message
        }

        public var description: String { "\(IgnoreRules.fileName):\(line): \(message)" }
    }

    /// The name of the per-folder ignore file.
    public static let fileName = ".docsyncignore"

    /// The prefix of the daemon's own temporary files (ignored by default).
    public static let temporaryFilePrefix = ".docsync-tmp-"

    /// The suffix of on-demand placeholders (`.NAME.docsync`, SPEC §6): the engine tracks
    /// them itself, so they are never synced as files.
    public static let placeholderSuffix = ".docsync"

    /// The hidden file at a folder's root that tells the daemon "this is the directory I
    /// indexed" (SPEC §4a): never synced.
    public static let rootMarkerName = ".docsync-root"

    /// The default patterns, in the ignore-file syntax: editor swap and backup files, the
    /// daemon's own temporary files and placeholders, the root marker, any name ending
    /// in `.nosync`, and the `.Trash-UID` folders file managers make at the top of a file
    /// system they cannot move deleted files off (an on-demand folder's mount, SPEC §14).
    public static let defaultPatterns = ["*.swp", "*~", ".#*", "~$*", ".~lock.*#", "*.nosync", temporaryFilePrefix + "*",
                                         ".?*" + placeholderSuffix, "/" + rootMarkerName, "/.Trash-*/"]

    /// The defaults of SPEC §9: `*.swp`, `*~`, `.#*`, `~$*`, `.~lock.*#`, any name ending in
    /// `.nosync`, the daemon's own temporary files (names starting with `.docsync-tmp-`),
    /// on-demand placeholders (`.NAME.docsync`), the root marker (`/.docsync-root`) and
    /// trash folders at the root (`/.Trash-*/`).
    public static let defaults = IgnoreRules(ignoreFileContents: nil)

    /// Lines of the ignore file that were skipped, in line order. Never includes the defaults.
    public var problems: [Problem]

    private var rules: [IgnoreRule]

    /// The defaults plus the lines of a `.docsyncignore` file (nil: the defaults alone).
    /// Bad lines are reported in `problems` (line number + message) and skipped, never fatal.
    public init(ignoreFileContents: String?) {
        rules = Self.defaultPatterns.map { pattern in
            // The defaults are fixed and valid; a failure here is a programming error.
            do { return try IgnoreRule(parsing: pattern) } catch { preconditionFailure("default ignore pattern \(pattern): \(error)") }
        }
        problems = []
        guard let ignoreFileContents else { return }
        // "\r\n" is one Character, so it is a separator of its own.
        let lines = ignoreFileContents.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (offset, rawLine) in lines.enumerated() {
            let line = Self.trimmed(rawLine)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("!") {
                problems.append(Problem(line: offset + 1, message: "negation ('!') is not supported; use '\\!' for a name starting with '!'"))
                continue
            }
            do {
                rules.append(try IgnoreRule(parsing: line))
            } catch {
                problems.append(Problem(line: offset + 1, message: error.message))
            }
        }
    }

    /// True when the item at `path` is ignored, by its own name/path or because an ancestor directory is ignored.
    public func isIgnored(_ path: RelativePath, isDirectory: Bool) -> Bool {
        isIgnored(components: path.components, isDirectory: isDirectory)
    }

    /// Same for a single name (used while walking, before a RelativePath exists): the item
    /// called `name` in the directory `parent` (nil: the folder's root). Gives the same answer
    /// as `isIgnored(_:isDirectory:)` for the path `parent/name`.
    public func isIgnored(name: String, parent: RelativePath?, isDirectory: Bool) -> Bool {
        var components = parent?.components ?? []
        components.append(Substring(name))
        return isIgnored(components: components, isDirectory: isDirectory)
    }

    private func isIgnored(components: [Substring], isDirectory: Bool) -> Bool {
        for end in components.indices {
            let prefix = components[...end]
            let prefixIsDirectory = end < components.count - 1 || isDirectory
            for rule in rules where rule.matches(prefix, isDirectory: prefixIsDirectory) { return true }
        }
        return false
    }

    /// A line without its trailing `\r` and unescaped trailing spaces.
    private static func trimmed(_ line: Substring) -> String {
        var text = line
        if text.hasSuffix("\r") { text = text.dropLast() }
        while text.hasSuffix(" ") {
            // "\ " at the end keeps its space: count the backslashes before it.
            let beforeSpace = text.dropLast()
            let backslashes = beforeSpace.reversed().prefix { $0 == "\\" }.count
            if backslashes % 2 == 1 { break }
            text = beforeSpace
        }
        return String(text)
    }
}

import Foundation

/// The XDG base directories docsync uses, from an environment and a home directory (both
/// passed in, so tests are hermetic).
///
/// Per the XDG Base Directory specification, a variable that is unset, empty or not an
/// absolute path is ignored and the default under the home directory is used.
public struct XDGPaths: Sendable, Hashable {
    public var environment: [String: String]
    /// Absolute, without a trailing slash.
    public var homeDirectory: String

    public init(environment: [String: String], homeDirectory: String) {
        self.environment = environment
        self.homeDirectory = homeDirectory
    }

    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    public var configHome: String { absolute("XDG_CONFIG_HOME") ?? homeDirectory + "/.config" }

    /// `$XDG_STATE_HOME`, else `~/.local/state`.
    public var stateHome: String { absolute("XDG_STATE_HOME") ?? homeDirectory + "/.local/state" }

    /// Where `docsyncd` looks for its configuration without `--config`: `<configHome>/docsync/docsync.toml`.
    public var configurationFile: String { configHome + "/docsync/docsync.toml" }

    /// The default `state_dir`: `<stateHome>/docsync`.
    public var stateDirectory: String { stateHome + "/docsync" }

    /// `path` with a leading `~` or `~/` replaced by the home directory; `nil` for `~user`
    /// forms, which docsync does not expand. Other paths come back unchanged.
    public func expandingTilde(_ path: String) -> String? {
        if path == "~" { return homeDirectory }
        if path.hasPrefix("~/") { return homeDirectory + path.dropFirst() }
        if path.hasPrefix("~") { return nil }
        return path
    }

    private func absolute(_ name: String) -> String? {
        guard let value = environment[name], value.hasPrefix("/") else { return nil }
        return PathNormalization.normalize(value)
    }
}

/// Lexical path clean-up: no `.` components, no repeated or trailing slashes, `..` resolved
/// against the components before it (never above `/`). The file system is not consulted.
enum PathNormalization {
    static func normalize(_ path: String) -> String {
        var components: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": if !components.isEmpty { components.removeLast() }
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }
}

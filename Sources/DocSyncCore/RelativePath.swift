/// A path inside a zone, relative to the synced folder's root, with `/` separators.
///
/// Valid paths are what a backend may store and a daemon may write without leaving its
/// folder: not empty, not absolute, no `.` or `..` or empty components, no NUL, each
/// component at most 255 bytes and the whole at most 4,096 bytes (Linux's limits).
public struct RelativePath: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let string: String

    /// Accepts a valid relative path, or throws `.invalidArguments` naming the problem.
    public init(validating string: String) throws(SyncError) {
        if let problem = RelativePath.problem(with: string) {
            throw SyncError(.invalidArguments, "path \(string.debugDescription) \(problem)")
        }
        self.string = string
    }

    /// For paths known to be valid (literals in code and tests). Traps otherwise.
    public init(_ string: String) {
        precondition(RelativePath.problem(with: string) == nil, "invalid relative path \(string.debugDescription)")
        self.string = string
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        if let problem = RelativePath.problem(with: string) {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "path \(problem)")
        }
        self.string = string
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(string)
    }

    /// The path's components, in order.
    public var components: [Substring] { string.split(separator: "/", omittingEmptySubsequences: false) }

    /// The last component.
    public var name: String { String(components.last!) }

    /// The path of the parent directory, or `nil` for an item at the folder's root.
    public var parent: RelativePath? {
        guard let slash = string.lastIndex(of: "/") else { return nil }
        return RelativePath(String(string[..<slash]))
    }

    /// This path with one more component appended; throws when the result is invalid.
    public func appending(_ component: String) throws(SyncError) -> RelativePath {
        try RelativePath(validating: string + "/" + component)
    }

    public var description: String { string }

    public static func < (lhs: RelativePath, rhs: RelativePath) -> Bool { lhs.string < rhs.string }

    /// Why `string` is not a valid relative path, or `nil` when it is.
    public static func problem(with string: String) -> String? {
        if string.isEmpty { return "is empty" }
        if string.utf8.count > 4096 { return "is longer than 4096 bytes" }
        if string.utf8.contains(0) { return "contains a NUL byte" }
        if string.hasPrefix("/") { return "is absolute" }
        for component in string.split(separator: "/", omittingEmptySubsequences: false) {
            if component.isEmpty { return "has an empty component" }
            if component == "." || component == ".." { return "has a '\(component)' component" }
            if component.utf8.count > 255 { return "has a component longer than 255 bytes" }
        }
        return nil
    }
}

/// A path inside a zone, relative to the synced folder's root, with `/` separators.
///
/// Valid paths are what a backend may store and a daemon may write without leaving its
/// folder: not empty, not absolute, no `.` or `..` or empty components, no NUL, each
/// component at most 255 bytes and the whole at most 4,096 bytes (Linux's limits).
///
/// Paths are bytes (SPEC §4a): two paths are equal, hash alike and are ordered by their
/// UTF-8 bytes, as Linux names files and SQLite compares text — never by the canonical
/// equivalence Swift's `String` uses, so NFC `caf\u{E9}` and NFD `cafe\u{301}` are two paths.
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

    /// How many components the path has (1 for an item at the folder's root).
    public var depth: Int {
        var slashes = 0
        for byte in string.utf8 where byte == RelativePath.slash { slashes += 1 }
        return slashes + 1
    }

    /// The last component.
    public var name: String {
        guard let slash = string.utf8.lastIndex(of: RelativePath.slash) else { return string }
        return String(string[string.utf8.index(after: slash)...])
    }

    /// The path of the parent directory, or `nil` for an item at the folder's root.
    public var parent: RelativePath? {
        guard let slash = string.utf8.lastIndex(of: RelativePath.slash) else { return nil }
        // A valid path's leading components form a valid path: no need to check again.
        return RelativePath(checked: String(string[..<slash]))
    }

    /// For strings already known to be valid paths (derived from one).
    private init(checked string: String) {
        self.string = string
    }

    private static let slash = UInt8(ascii: "/")

    /// This path with one more component appended; throws when the result is invalid.
    public func appending(_ component: String) throws(SyncError) -> RelativePath {
        try RelativePath(validating: string + "/" + component)
    }

    public var description: String { string }

    public static func == (lhs: RelativePath, rhs: RelativePath) -> Bool { lhs.string.bytesEqual(rhs.string) }

    public func hash(into hasher: inout Hasher) { string.hashBytes(into: &hasher) }

    /// Byte order (`precedesInByteOrder`).
    public static func < (lhs: RelativePath, rhs: RelativePath) -> Bool { lhs.string.bytesPrecede(rhs.string) }

    /// Whether this path comes before `other` in the order of their UTF-8 bytes: the order
    /// SQLite's BINARY collation keeps paths in, and `FolderScanner` walks them in (`<`).
    public func precedesInByteOrder(_ other: RelativePath) -> Bool {
        string.bytesPrecede(other.string)
    }

    /// Whether this path is `ancestor` or lies beneath it, comparing bytes.
    public func isSameOrBeneath(_ ancestor: RelativePath) -> Bool { string.isSamePathOrBeneath(ancestor.string) }

    /// Whether this path lies strictly beneath `ancestor`, comparing bytes.
    public func isBeneath(_ ancestor: RelativePath) -> Bool {
        string.utf8.count > ancestor.string.utf8.count && isSameOrBeneath(ancestor)
    }

    /// Why `string` is not a valid relative path, or `nil` when it is.
    public static func problem(with string: String) -> String? {
        if string.isEmpty { return "is empty" }
        if string.utf8.count > 4096 { return "is longer than 4096 bytes" }
        if string.utf8.contains(0) { return "contains a NUL byte" }
        if string.utf8.first == slash { return "is absolute" }
        // One pass over the bytes, component by component (every path the engine meets
        // is checked here, so no arrays of substrings).
        var length = 0
        var onlyDots = true
        func componentProblem() -> String? {
            if length == 0 { return "has an empty component" }
            if onlyDots && length <= 2 { return "has a '\(length == 1 ? "." : "..")' component" }
            if length > 255 { return "has a component longer than 255 bytes" }
            return nil
        }
        for byte in string.utf8 {
            if byte == slash {
                if let problem = componentProblem() { return problem }
                length = 0
                onlyDots = true
            } else {
                length += 1
                if byte != UInt8(ascii: ".") { onlyDots = false }
            }
        }
        return componentProblem()
    }
}

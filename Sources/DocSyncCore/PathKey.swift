/// A path (relative or absolute) or a name as a key of a set or a dictionary: equal, hashed
/// and ordered by its UTF-8 bytes (SPEC §4a "Paths are bytes").
///
/// Use it wherever paths that are not `RelativePath`s (watcher paths, absolute paths, names
/// read from a directory) are kept in a `Set` or a `Dictionary` or sorted: a `String` key
/// takes NFC `caf\u{E9}` and NFD `cafe\u{301}` for one key, and one of two files is lost.
public struct PathKey: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The path, as given.
    public let string: String

    public init(_ string: String) { self.string = string }

    public init<Text: StringProtocol>(_ text: Text) { self.string = String(text) }

    public init(stringLiteral value: String) { self.string = value }

    public static func == (lhs: PathKey, rhs: PathKey) -> Bool { lhs.string.bytesEqual(rhs.string) }

    public func hash(into hasher: inout Hasher) { string.hashBytes(into: &hasher) }

    /// Byte order: SQLite's BINARY collation, and the order `FolderScanner` walks in.
    public static func < (lhs: PathKey, rhs: PathKey) -> Bool { lhs.string.bytesPrecede(rhs.string) }

    public var description: String { string }
}

/// What a participant of a shared zone may do (SPEC §11): read and fetch only, or also
/// save, delete and recover. Spelled as iCloud's `permissions` key (`readOnly`,
/// `readWrite`) in JSON and predicates, and `read-only` / `read-write` on command lines.
public enum SharePermission: String, Hashable, Codable, Sendable, CaseIterable {
    case readOnly
    case readWrite

    /// The permission a command-line argument names (`read-only` or `read-write`, the JSON
    /// spellings accepted too), or `nil`.
    public init?(argument: String) {
        switch argument {
        case "read-only", "readOnly": self = .readOnly
        case "read-write", "readWrite": self = .readWrite
        default: return nil
        }
    }

    /// The command-line spelling: `read-only` or `read-write`.
    public var argument: String { self == .readOnly ? "read-only" : "read-write" }
}

/// How a folder settles content changed on two devices (SPEC §4). Under every policy the
/// losing content is kept in the version store.
public enum ConflictPolicy: String, Codable, Sendable, Hashable, CaseIterable {
    /// The server's content stays in place; the local one is kept beside it as a conflict copy.
    case keepBoth = "keep-both"
    /// The content with the later modification time wins.
    case newestWins = "newest-wins"
    /// This device's content wins.
    case localWins = "local-wins"
    /// The server's content wins.
    case remoteWins = "remote-wins"
}

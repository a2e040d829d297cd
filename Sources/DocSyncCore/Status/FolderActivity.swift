/// A person's long action running in a folder (SPEC §15: progress for `recover` and
/// `deletions --restore`), as its status shows it while it runs.
public struct FolderActivity: Codable, Sendable, Hashable {
    /// What runs, for a person: `recovering from Recently Deleted`, `restoring held deletions`.
    public var action: String
    /// Items done so far, of `total`; `done` only grows while the action runs.
    public var done: Int
    public var total: Int

    public static let recovering = "recovering from Recently Deleted"
    public static let restoring = "restoring held deletions"

    public init(action: String, done: Int, total: Int) {
        self.action = action
        self.done = done
        self.total = total
    }
}

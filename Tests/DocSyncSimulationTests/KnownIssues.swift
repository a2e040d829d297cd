/// Seeds that fail because of a bug in the engine's decision code (`FolderEngine+ApplyRemote`,
/// `+Merge`, `+RemoteDeletion`), which is being rewritten as a pure planner: each runs under
/// `withKnownIssue` naming the bug, so the suite stays green and honest. When the planner
/// fixes a bug, its seeds pass, `withKnownIssue` reports that, and they move to
/// `RegressionSeeds.fixed`.
enum KnownIssues {
    /// Seed → the bug it shows.
    static let bugs: [UInt64: String] = [:]
}

/// Seeds that once failed and were fixed: run on every `make test`, named by what they found.
enum RegressionSeeds {
    static let fixed: [UInt64: String] = [:]
}

/// Seeds that fail because of a bug in the engine's decision code (`FolderEngine+ApplyRemote`,
/// `+Merge`, `+RemoteDeletion`), which is being rewritten as a pure planner: each runs under
/// `withKnownIssue` naming the bug, so the suite stays green and honest. When the planner
/// fixes a bug, its seeds pass, `withKnownIssue` reports that, and they move to
/// `RegressionSeeds.fixed`.
enum KnownIssues {
    /// Seed → the bug it shows.
    static let bugs: [UInt64: String] = [:]

    /// Why the randomized run is a known issue as a whole for now: a first run of seeds
    /// 1...200 × 200 operations failed on most seeds (devices not settling within the healing
    /// budget, held roots after a confirmed root removal, writes on no disk and in no version
    /// store), and those failures are not yet sorted into engine bugs and simulation artefacts.
    static let untriaged = "untriaged simulation findings (issue 24): seeds 1...200 mostly fail; see the simulation branch report"
}

/// Seeds that once failed and were fixed: run on every `make test`, named by what they found.
enum RegressionSeeds {
    static let fixed: [UInt64: String] = [:]
}

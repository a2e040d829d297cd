import Foundation

/// What the simulation suite runs, from the environment: `DOCSYNC_SEED=N` runs that one
/// seed (known issue or not); otherwise `DOCSYNC_SIM_SEEDS` seeds (default 200: about a
/// minute and a half on two cores) from
/// `DOCSYNC_SIM_FIRST_SEED` (default 1), each with `DOCSYNC_SIM_OPS` operations (default 200).
/// `DOCSYNC_SIM_PRINT=1` prints each seed's whole log; `DOCSYNC_SIM_PRINT=/some/dir` writes it
/// to `seed-N.log` there instead; `DOCSYNC_SIM_LOG=debug|trace` adds the engines' own lines.
enum SimulationSettings {
    static let environment = ProcessInfo.processInfo.environment

    /// The one seed asked for with `DOCSYNC_SEED`, if any.
    static var replaySeed: UInt64? { environment["DOCSYNC_SEED"].flatMap { UInt64($0) } }

    static var operations: Int { environment["DOCSYNC_SIM_OPS"].flatMap { Int($0) } ?? 200 }

    /// The seeds of the randomized run, less those listed as known issues or regression
    /// seeds (they run on their own).
    static var seeds: [UInt64] {
        if let replaySeed { return KnownIssues.bugs[replaySeed] == nil ? [replaySeed] : [] }
        let count = environment["DOCSYNC_SIM_SEEDS"].flatMap { Int($0) } ?? 200
        let first = environment["DOCSYNC_SIM_FIRST_SEED"].flatMap { UInt64($0) } ?? 1
        return (0..<UInt64(max(0, count))).map { first + $0 }.filter { KnownIssues.bugs[$0] == nil && RegressionSeeds.fixed[$0] == nil }
    }

    /// The regression seeds to run: all of them, or none while one seed is replayed (it runs
    /// as a seeded run then).
    static var regressionSeeds: [UInt64] { replaySeed == nil ? RegressionSeeds.fixed.keys.sorted() : [] }

    /// The known-issue seeds to run: all of them, or the replayed one when it is one.
    static var knownIssueSeeds: [UInt64] {
        if let replaySeed { return KnownIssues.bugs[replaySeed] == nil ? [] : [replaySeed] }
        let count = environment["DOCSYNC_SIM_SEEDS"].flatMap { Int($0) } ?? 200
        let first = environment["DOCSYNC_SIM_FIRST_SEED"].flatMap { UInt64($0) } ?? 1
        return KnownIssues.bugs.keys.filter { $0 >= first && $0 < first + UInt64(max(0, count)) }.sorted()
    }
}

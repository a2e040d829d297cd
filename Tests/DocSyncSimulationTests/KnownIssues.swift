/// Seeds of the default range (1...200) that fail today, each named by the bug it shows
/// (issue 24, point 5). Each runs under `withKnownIssue`, so the suite stays green while the
/// failure is still printed with its seed and log; a fixed seed moves to `RegressionSeeds`.
/// Triage so far (`DOCSYNC_SEED=N DOCSYNC_SIM_PRINT=1 DOCSYNC_SIM_LOG=debug`):
enum KnownIssues {
    /// After settling, a device's tree differs from the store's records. Seed 23: two folder
    /// records for one path (made on two devices while apart); a device keeps one and ignores
    /// the other (SPEC §4's "the smaller name stays"), so when the kept one moves away the
    /// ignored one is never placed. Others not yet traced.
    static let tree = "a device's tree differs from the store after settling: an ignored second folder record for a path is never placed once the kept one moves (seed 23)"
    /// A write ends on no disk and in no version store. Seed 31: a remote deletion moved the
    /// file into the version store, then a power cut: the version directory was not flushed,
    /// and MemoryFileSystem keeps each directory durable on its own (ext4 journals a rename
    /// whole). Others not yet traced.
    static let lost = "a write on no disk and in no version store after a power cut: a file moved into the version store without flushing its directory (seed 31)"
    /// Deleted content comes back: the deletion, sent on a stale base, loses to an automatic
    /// change of the record (a conflict rename made by an engine), which the ledger does not
    /// count as a competing edit (seed 23). Others not yet traced.
    static let back = "deleted content comes back: a deletion loses to an engine's automatic rename of the record (seed 23)"
    /// The devices do not settle within the healing budget. Not yet traced.
    static let settle = "the devices do not settle after healing (not yet traced)"

    /// Seed → the bug it shows.
    static let bugs: [UInt64: String] = [
        6: settle,
        13: lost,
        22: tree,
        23: tree,
        24: back,
        30: back,
        31: lost,
        32: lost,
        34: lost,
        45: lost,
        56: tree,
        58: settle,
        62: back,
        73: lost,
        75: tree,
        79: back,
        89: back,
        92: back,
        97: lost,
        98: tree,
        101: tree,
        104: settle,
        118: settle,
        120: lost,
        125: tree,
        137: back,
        142: back,
        156: settle,
        163: lost,
        168: back,
        169: lost,
        171: tree,
        176: tree,
        178: tree,
        186: lost,
        192: tree,
        195: back,
    ]
}

/// Seeds that once failed and were fixed: run on every `make test`, named by what they found.
enum RegressionSeeds {
    static let fixed: [UInt64: String] = [
        2: "held folders were never confirmed while an engine still had turns to take (the simulation's healing)",
        3: "a chunk damaged at rest made every download fail forever (the store's operator now restores it at healing; an engine cannot yet repair it)",
        5: "a save that failed on a full disk deleted the file first (the simulation's editor now saves by rename)",
        54: "a remote folder move onto a directory the engine had made for its items retried forever (it now merges into it)",
    ]
}

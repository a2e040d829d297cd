/// Seeds of the default range (1...200) that fail today, each named by the bug it shows
/// (issue 24, point 5). Each runs under `withKnownIssue`, so the suite stays green while the
/// failure is still printed with its seed and log; a fixed seed moves to `RegressionSeeds`.
/// Triage so far (`DOCSYNC_SEED=N DOCSYNC_SIM_PRINT=1 DOCSYNC_SIM_LOG=debug`):
enum KnownIssues {
    /// A write ends on no disk and in no version store. Not yet traced (seeds 13, 34, 120,
    /// 169, 186; the version store's own durability was the cause in seeds 31, 32, 45, 101).
    static let lost = "a write on no disk and in no version store (not yet traced)"
    /// Deleted content comes back, in seeds 73 and 186 under a folder kept as a conflict copy.
    /// Not yet traced.
    static let back = "deleted content comes back under a folder kept as a conflict copy (not yet traced)"
    /// After settling, a device's tree differs from the store's records. Seed 125: a file on
    /// one device that the store does not have. Not yet traced.
    static let tree = "a device's tree differs from the store after settling: a file the store lacks (seed 125, not yet traced)"
    /// The devices do not settle within the healing budget. Not yet traced.
    static let settle = "the devices do not settle after healing (not yet traced)"

    /// Seed → the bug it shows.
    static let bugs: [UInt64: String] = [
        13: lost,
        34: lost,
        58: settle,
        73: back,
        120: lost,
        125: tree,
        169: lost,
        186: lost,
    ]
}

/// Seeds that once failed and were fixed: run on every `make test`, named by what they found.
enum RegressionSeeds {
    static let secondFolderRecord = "a second folder record for a path, ignored while this device's own folder held the path, was never placed once that folder moved away (it now waits for the path in the index)"
    static let versionStoreDurability = "content moved into the version store was lost in a power cut: its directories were never flushed"
    static let ownLostSave = "a save whose answer was lost, then the item deleted: the deletion lost to the device's own save, taken for another device's edit"
    static let ledgerLineage = "the ledger took a move made on an older version of a record as no competition for a deletion of a newer one (SPEC §4 merges the two; the ledger now follows a record's paths)"
    static let ledgerTiming = "the ledger let a device's earlier deletion cancel its own later move of the content that came back (it now compares each device's last touch with its last deletion)"
    static let notSettling = "did not settle after healing (settles since second folder records wait for their path and a folder merging into a directory made for its items keeps taken names beside)"

    static let fixed: [UInt64: String] = [
        2: "held folders were never confirmed while an engine still had turns to take (the simulation's healing)",
        3: "a chunk damaged at rest made every download fail forever (the store's operator now restores it at healing; an engine cannot yet repair it)",
        5: "a save that failed on a full disk deleted the file first (the simulation's editor now saves by rename)",
        6: notSettling,
        22: secondFolderRecord,
        24: ledgerTiming,
        23: secondFolderRecord,
        30: ledgerLineage,
        31: versionStoreDurability,
        32: versionStoreDurability,
        45: versionStoreDurability,
        54: "a remote folder move onto a directory the engine had made for its items retried forever (it now merges into it)",
        56: secondFolderRecord,
        62: ownLostSave,
        75: secondFolderRecord,
        79: ledgerLineage,
        89: ledgerLineage,
        92: ledgerLineage,
        97: versionStoreDurability,
        98: secondFolderRecord,
        100: "an edited file moved aside by a plan cut short (a 503 between the copy and the write) was never observed again: its row stayed pending forever",
        101: versionStoreDurability,
        104: notSettling,
        118: notSettling,
        137: ledgerLineage,
        142: ledgerLineage,
        156: ledgerTiming,
        163: versionStoreDurability,
        168: ledgerLineage,
        170: "a folder whose record moved inside its own old place (two devices' moves forming a cycle) retried its move forever",
        171: secondFolderRecord,
        174: "a waiting second folder record deleted while the change token expired was placed after the refetch",
        176: ledgerLineage,
        178: secondFolderRecord,
        192: ownLostSave,
        195: ledgerLineage,
    ]
}

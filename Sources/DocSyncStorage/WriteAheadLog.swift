/// Settings of SQLite's write-ahead log shared by the databases docsync writes in bulk.
public enum WriteAheadLog {
    /// For a writer connection: the log is copied back into the database once it holds
    /// 16,384 pages (64 MB with 4 KiB pages) rather than SQLite's 1,000. A large sync commits
    /// many transactions that touch the same pages (an index in path order, a digest
    /// index); copying them back less often writes each page back once instead of many
    /// times, which measured about a third faster on 10,000 item updates. After a copy the
    /// log file is cut back to 64 MB at most.
    public static let bulkFriendlyCheckpoints = "PRAGMA wal_autocheckpoint = 16384; PRAGMA journal_size_limit = 67108864"

    /// For a writer connection: keep up to 32 MB of pages instead of SQLite's 2 MB. A sync
    /// inserts rows with random keys (record names, digests) into B-trees larger than 2 MB,
    /// so with the default each transaction read most of its pages back from the log.
    /// Pages are taken as touched; GRDB's `releaseMemory` frees them.
    public static let writerCacheSize = "PRAGMA cache_size = -32768"
}

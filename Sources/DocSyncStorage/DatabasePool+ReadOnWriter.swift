import GRDB

extension DatabasePool {
    /// Runs `body` on the writer's connection, in one read transaction; called inside a
    /// write, in that write's transaction (it then sees what the write has done so far).
    ///
    /// For a process reading between its own writes: SQLite empties a reader connection's
    /// page cache whenever another connection has committed, so during a sync nearly every
    /// read on a reader started cold and read its B-tree pages back from the log, while the
    /// writer's cache survives its commits. One transaction for the whole body, because on
    /// their own its statements would each take and drop the log's read lock (system
    /// calls). A read-only transaction never takes the write lock, so other processes
    /// sharing the database may still write; it does wait while this pool's writer is busy.
    public func readOnWriter<T>(_ body: (Database) throws -> T) throws -> T {
        try unsafeReentrantWrite { db in
            guard !db.isInsideTransaction else { return try body(db) }
            var result: T?
            try db.inTransaction(.deferred) {
                result = try body(db)
                return .commit
            }
            return result!
        }
    }
}

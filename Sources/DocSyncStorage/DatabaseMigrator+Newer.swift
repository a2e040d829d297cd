import DocSyncCore
import GRDB

extension DatabaseMigrator {
    /// Applies the migrations this version knows to `writer`, after making sure no newer
    /// version of docsync has migrated it further: such a database is refused with
    /// `invalidArguments` (naming `what`), because this version would misread it — say, an
    /// embedded backend whose chunk rows name packs by number read as if they named files.
    ///
    /// The check runs on the writer's connection: a pool's reader opened before the
    /// migrations would keep the schema it read, and a statement it prepares from that schema
    /// (`SELECT *` of a table a migration gave a column) has the old number of columns.
    public func migrateRefusingNewer(_ writer: some DatabaseWriter, what: String) throws {
        if try writer.writeWithoutTransaction({ db in try hasBeenSuperseded(db) }) {
            throw SyncError(.invalidArguments, "\(what) was written by a newer version of docsync (its database has changes this version does not know); run that version or a newer one")
        }
        try migrate(writer)
    }
}

import GRDB

/// The embedded backend's SQLite schema, as named, append-only migrations.
/// Never edit a migration that has shipped; add a new one.
enum LocalBackendSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: zones, records, tombstones, sequence") { db in
            // One sequence for the whole database: change tags and change-token positions
            // are never reused, even across a zone's deletion and re-creation.
            try db.execute(sql: """
                CREATE TABLE sequence (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
                INSERT INTO sequence (id, value) VALUES (1, 0);
                CREATE TABLE zone (
                    name TEXT PRIMARY KEY NOT NULL,
                    incarnation TEXT NOT NULL,       -- new on every creation; tokens carry it
                    lastSeq INTEGER NOT NULL,        -- sequence value of the zone's latest change
                    compactedThroughSeq INTEGER NOT NULL DEFAULT 0  -- tokens below this are expired
                );
                CREATE TABLE record (
                    zone TEXT NOT NULL REFERENCES zone(name) ON DELETE CASCADE,
                    recordName TEXT NOT NULL,
                    changeTag TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    body BLOB NOT NULL,              -- the record as WireCoding JSON
                    PRIMARY KEY (zone, recordName)
                ) WITHOUT ROWID;
                CREATE INDEX record_by_seq ON record(zone, seq);
                CREATE TABLE tombstone (
                    zone TEXT NOT NULL REFERENCES zone(name) ON DELETE CASCADE,
                    recordName TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    deletedAt DOUBLE NOT NULL,       -- seconds since 1970, for compaction
                    PRIMARY KEY (zone, recordName)
                ) WITHOUT ROWID;
                CREATE INDEX tombstone_by_seq ON tombstone(zone, seq);
                CREATE INDEX tombstone_by_age ON tombstone(deletedAt);
                """)
        }
        migrator.registerMigration("v2: chunks in pack files, indexed") { db in
            try db.execute(sql: """
                CREATE TABLE chunk (
                    digest BLOB PRIMARY KEY NOT NULL,  -- 32 bytes of SHA-256
                    pack TEXT NOT NULL,                -- file name under packs/
                    offset INTEGER NOT NULL,
                    length INTEGER NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        return migrator
    }
}

import DocSyncCore
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
        migrator.registerMigration("v3: chunks name their pack by number") { db in
            // A chunk row held its pack's 31-character file name: with a number the rows are
            // about a third smaller, and a batch's inserts at random digests write that much
            // less of the table to the log (10,000 files: 69 → 48 MB, 40 % less time, measured
            // with the sqlite3 module on 47,000 chunks in 40 batches).
            try db.execute(sql: """
                CREATE TABLE pack (
                    id INTEGER PRIMARY KEY,            -- never reused: packs are not deleted
                    name TEXT NOT NULL UNIQUE          -- file name under packs/
                );
                INSERT INTO pack (name) SELECT DISTINCT pack FROM chunk ORDER BY pack;
                CREATE TABLE numberedChunk (
                    digest BLOB PRIMARY KEY NOT NULL,  -- 32 bytes of SHA-256
                    pack INTEGER NOT NULL,             -- pack(id)
                    offset INTEGER NOT NULL,
                    length INTEGER NOT NULL
                ) WITHOUT ROWID;
                INSERT INTO numberedChunk (digest, pack, offset, length)
                    SELECT chunk.digest, pack.id, chunk.offset, chunk.length FROM chunk JOIN pack ON pack.name = chunk.pack;
                DROP TABLE chunk;
                ALTER TABLE numberedChunk RENAME TO chunk;
                """)
        }
        migrator.registerMigration("v4: chunks found by a short integer key") { db in
            // Keyed by the random digest, every batch of inserts rewrote most of the table's
            // pages to the log (a sync of 10,000 files and 20 large ones: 12,000 of the
            // backend's 13,600 log pages). The rows now go in the order they are stored, and
            // only a small index of 8-byte keys takes inserts at random places. A digest is
            // stored once: the writer looks for it in the same transaction that inserts it.
            db.addDigestKeyFunction()
            try db.execute(sql: """
                CREATE TABLE keyedChunk (
                    digestKey INTEGER NOT NULL,        -- the digest's first 8 bytes (SHA256Digest.indexKey)
                    digest BLOB NOT NULL,              -- 32 bytes of SHA-256, one row each
                    pack INTEGER NOT NULL,             -- pack(id)
                    offset INTEGER NOT NULL,
                    length INTEGER NOT NULL
                );
                INSERT INTO keyedChunk (digestKey, digest, pack, offset, length)
                    SELECT digestKey(digest), digest, pack, offset, length FROM chunk ORDER BY pack, offset;
                DROP TABLE chunk;
                ALTER TABLE keyedChunk RENAME TO chunk;
                CREATE INDEX chunk_by_key ON chunk(digestKey);
                """)
        }
        migrator.registerMigration("v5: Recently Deleted, replaced versions, chunk ages, usage counters") { db in
            // Kept versions name the sequence value of the version they keep (its change tag),
            // so a collection can tell what was kept after it looked (seq above its mark).
            // A chunk's storedAt is when it was stored or last stored again: chunks no kept
            // version references are collected only once it is older than the grace period.
            // Chunks stored before this migration count as old. Usage is kept as counters,
            // counted once here. Packs are removed now (compacted or emptied): their numbers
            // become AUTOINCREMENT, so a number never names two packs.
            try db.execute(sql: """
                CREATE TABLE numberedPack (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL UNIQUE          -- file name under packs/
                );
                INSERT INTO numberedPack (id, name) SELECT id, name FROM pack ORDER BY id;
                DROP TABLE pack;
                ALTER TABLE numberedPack RENAME TO pack;
                CREATE TABLE deletedRecord (
                    zone TEXT NOT NULL REFERENCES zone(name) ON DELETE CASCADE,
                    recordName TEXT NOT NULL,
                    seq INTEGER NOT NULL,            -- sequence value of the version kept
                    deletedAt INTEGER NOT NULL,      -- nanoseconds since 1970
                    deletedBy TEXT NOT NULL,         -- the deleting device, "" when unnamed
                    body BLOB NOT NULL,              -- the record's last version (CompactCoding)
                    PRIMARY KEY (zone, recordName)
                ) WITHOUT ROWID;
                CREATE INDEX deletedRecord_by_time ON deletedRecord(zone, deletedAt);
                CREATE INDEX deletedRecord_by_age ON deletedRecord(deletedAt);
                CREATE INDEX deletedRecord_by_seq ON deletedRecord(seq);
                CREATE TABLE replacedVersion (
                    id INTEGER PRIMARY KEY,
                    zone TEXT NOT NULL REFERENCES zone(name) ON DELETE CASCADE,
                    recordName TEXT NOT NULL,
                    seq INTEGER NOT NULL,            -- sequence value of the version kept
                    replacedAt INTEGER NOT NULL,     -- nanoseconds since 1970
                    body BLOB NOT NULL               -- the replaced version (CompactCoding)
                );
                CREATE INDEX replacedVersion_by_record ON replacedVersion(zone, recordName);
                CREATE INDEX replacedVersion_by_age ON replacedVersion(replacedAt);
                CREATE INDEX replacedVersion_by_seq ON replacedVersion(seq);
                ALTER TABLE chunk ADD COLUMN storedAt INTEGER NOT NULL DEFAULT 0;  -- milliseconds since 1970
                CREATE INDEX chunk_by_age ON chunk(storedAt);
                CREATE TABLE storeCounter (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    chunkCount INTEGER NOT NULL,
                    chunkBytes INTEGER NOT NULL,
                    lastCollectedAt DOUBLE NOT NULL  -- seconds since 1970 of the last finished collection
                );
                INSERT INTO storeCounter (id, chunkCount, chunkBytes, lastCollectedAt)
                    SELECT 1, COUNT(*), COALESCE(SUM(length), 0), 0 FROM chunk;
                """)
        }
        migrator.registerMigration("v6: records kept as JSON rewritten in the compact form") { db in
            // Records saved before the compact form existed were kept as their wire JSON, and
            // every read of one fell back to JSONDecoder. They are rewritten once, here, so
            // the readers know one form; a row too damaged to read stays as it was (and a
            // read of it fails, as it did).
            for (table, key) in [("record", ["zone", "recordName"]), ("deletedRecord", ["zone", "recordName"]), ("replacedVersion", ["id"])] {
                try db.rewriteLegacyJSON(in: table, column: "body", key: key, CompactCoding.recordFromLegacyJSON)
            }
        }
        migrator.registerMigration("v7: sealed chunks keep the SHA-256 of their body") { db in
            // A sealed chunk (SPEC §13) is stored under its id, a keyed MAC of content the
            // store never sees; bodyDigest is the SHA-256 of its bytes, checked on upload and
            // on every read. NULL for a plain chunk, whose digest is the SHA-256 of its bytes.
            try db.execute(sql: "ALTER TABLE chunk ADD COLUMN bodyDigest BLOB")
        }
        migrator.registerMigration("v8: a moved zone is kept as a redirect") { db in
            // A zone moved into another (SPEC §13: a folder turned encrypted) keeps its row,
            // emptied of records, history and kept versions, naming the zone it went to: every
            // call naming it then answers zoneMoved. NULL for a zone in use.
            try db.execute(sql: "ALTER TABLE zone ADD COLUMN movedTo TEXT")
        }
        return migrator
    }
}

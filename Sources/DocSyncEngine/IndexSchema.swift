import DocSyncCore
import DocSyncStorage
import GRDB

/// The local index's SQLite schema, as named, append-only migrations.
/// Never edit a migration that has shipped; add a new one.
enum IndexSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: items, chunk locations, versions, engine state") { db in
            try db.execute(sql: """
                CREATE TABLE item (
                    recordName TEXT PRIMARY KEY NOT NULL,
                    path TEXT NOT NULL,              -- where the item is on disk now (its last path while a deletion is pending)
                    name TEXT NOT NULL,              -- last component of path, for queries
                    kind TEXT NOT NULL,              -- Document | Folder | Symlink
                    size INTEGER NOT NULL,
                    mtime INTEGER NOT NULL,          -- nanoseconds since 1970
                    inode INTEGER NOT NULL,
                    mode INTEGER NOT NULL,
                    digest TEXT,                     -- SHA-256 hex of the content (documents, once read)
                    asset BLOB,                      -- AssetReference JSON (documents, once read)
                    symlinkTarget TEXT,
                    acked BLOB,                      -- the last record the server acknowledged (JSON): the merge ancestor
                    pending INTEGER NOT NULL,        -- 0 nothing, 1 save, 2 delete
                    needsRead INTEGER NOT NULL,      -- content must be read (hashed) before it can be sent
                    chunksUploaded INTEGER NOT NULL, -- the server has every chunk of `asset`
                    revision INTEGER NOT NULL,       -- bumped on every local change
                    downloadingStatus TEXT NOT NULL DEFAULT 'current',
                    isDownloading INTEGER NOT NULL DEFAULT 0,
                    percentDownloaded DOUBLE NOT NULL DEFAULT 100,
                    isUploading INTEGER NOT NULL DEFAULT 0,
                    isUploaded INTEGER NOT NULL DEFAULT 0,
                    percentUploaded DOUBLE NOT NULL DEFAULT 0,
                    downloadingError TEXT,
                    uploadingError TEXT,
                    hasUnresolvedConflicts INTEGER NOT NULL DEFAULT 0
                ) WITHOUT ROWID;
                CREATE INDEX item_by_path ON item(path);
                CREATE INDEX item_by_inode ON item(inode);
                CREATE INDEX item_pending ON item(pending) WHERE pending != 0;
                CREATE TABLE chunkLocation (
                    digest BLOB NOT NULL,            -- 32 bytes
                    recordName TEXT NOT NULL REFERENCES item(recordName) ON DELETE CASCADE,
                    offset INTEGER NOT NULL,
                    length INTEGER NOT NULL
                );
                CREATE INDEX chunkLocation_by_digest ON chunkLocation(digest);
                CREATE INDEX chunkLocation_by_item ON chunkLocation(recordName);
                CREATE TABLE version (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    recordName TEXT NOT NULL,
                    path TEXT NOT NULL,
                    savedAt INTEGER NOT NULL,        -- nanoseconds since 1970
                    reason TEXT NOT NULL,            -- conflict | overwritten | deleted
                    device TEXT NOT NULL,            -- who made the content that was kept
                    size INTEGER NOT NULL,
                    file TEXT NOT NULL               -- path inside the version store
                );
                CREATE INDEX version_by_record ON version(recordName);
                CREATE TABLE engineState (
                    key TEXT PRIMARY KEY NOT NULL,
                    value BLOB
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v2: a covering index for metadata queries") { db in
            // Metadata queries (`docs-status query`) scan this narrow index in path order
            // instead of the item rows, which carry the asset and the acknowledged record.
            // It starts with the path, so it also serves every lookup item_by_path served.
            try db.execute(sql: """
                CREATE INDEX item_metadata ON item(path, name, size, mtime, kind, downloadingStatus, isDownloading,
                    percentDownloaded, isUploading, isUploaded, percentUploaded, downloadingError, uploadingError,
                    hasUnresolvedConflicts, pending);
                DROP INDEX item_by_path;
                """)
        }
        migrator.registerMigration("v3: small indexes for the status counts") { db in
            // `docs-status` asks often (`wait` polls it): each count reads only the rows it
            // counts, never the whole table.
            try db.execute(sql: """
                CREATE INDEX item_deleting ON item(recordName) WHERE pending = 2;
                CREATE INDEX item_conflicted ON item(recordName) WHERE hasUnresolvedConflicts;
                CREATE INDEX item_upload_error ON item(recordName) WHERE uploadingError IS NOT NULL;
                CREATE INDEX item_download_error ON item(recordName) WHERE downloadingError IS NOT NULL;
                """)
        }
        migrator.registerMigration("v4: pending items counted from their index") { db in
            // The status's pending-upload count and bytes come from this index alone: with
            // only `pending` in it, counting 10,000 pending items looked up each row (6 ms
            // per status during an initial sync, which `docs-status wait` asks many times).
            try db.execute(sql: """
                DROP INDEX item_pending;
                CREATE INDEX item_pending ON item(pending, uploadingError, size) WHERE pending != 0;
                """)
        }
        migrator.registerMigration("v5: chunk locations found by a short integer key") { db in
            // The index of 32-byte digests took each page's inserts at random places: a
            // sync of 10,000 files and 20 large ones rewrote 4,200 of its pages to the log
            // (a third of the sender's log). Its key is now the digest's first 8 bytes;
            // lookups compare the whole digest in the row.
            db.addDigestKeyFunction()
            try db.execute(sql: """
                CREATE TABLE keyedChunkLocation (
                    digestKey INTEGER NOT NULL,      -- the digest's first 8 bytes (SHA256Digest.indexKey)
                    digest BLOB NOT NULL,            -- 32 bytes
                    recordName TEXT NOT NULL REFERENCES item(recordName) ON DELETE CASCADE,
                    offset INTEGER NOT NULL,
                    length INTEGER NOT NULL
                );
                INSERT INTO keyedChunkLocation (digestKey, digest, recordName, offset, length)
                    SELECT digestKey(digest), digest, recordName, offset, length FROM chunkLocation ORDER BY rowid;
                DROP TABLE chunkLocation;
                ALTER TABLE keyedChunkLocation RENAME TO chunkLocation;
                CREATE INDEX chunkLocation_by_key ON chunkLocation(digestKey);
                CREATE INDEX chunkLocation_by_item ON chunkLocation(recordName);
                """)
        }
        migrator.registerMigration("v6: pending items indexed in record-name order") { db in
            // Ordered by size, the index took each acknowledged item's removal at a random
            // place: settling a batch of 400 files rewrote some 110 of its pages to the log,
            // over half of what the batch wrote. By record name (the order a scan names
            // items in, and the order pages of them are sent in), a batch's entries lie
            // together. `size` stays in it for the status's pending bytes.
            try db.execute(sql: """
                DROP INDEX item_pending;
                CREATE INDEX item_pending ON item(pending, uploadingError, recordName, size) WHERE pending != 0;
                """)
        }
        migrator.registerMigration("v7: folder records waiting for their path") { db in
            // A second folder record for a path this device's own folder (of a smaller record
            // name) holds: the other devices drop theirs, but if the kept folder moves or goes
            // first, the waiting one is placed (`FolderEngine.placeShadowedFolders`).
            try db.execute(sql: """
                CREATE TABLE shadowedFolder (
                    recordName TEXT PRIMARY KEY NOT NULL,
                    path TEXT NOT NULL,
                    record BLOB NOT NULL             -- the record, compact-coded
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v8: new records whose save was never answered") { db in
            // A save of a new record whose answer was lost may have landed: if the item is
            // deleted here before the record comes back, the deletion is still sent
            // (`FolderEngine+UncertainSaves`).
            try db.execute(sql: """
                CREATE TABLE uncertainSave (
                    recordName TEXT PRIMARY KEY NOT NULL,
                    record BLOB NOT NULL             -- the record as sent, compact-coded
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v9: items the engine moved aside, records a refetch has not seen yet") { db in
            // An item moved aside to a conflict name by the engine, not by a person: if its
            // record turns out deleted elsewhere, the deletion wins (`FolderEngine+MovedAside`).
            // While a fetch from scratch runs (it may be cut short and go on later), the
            // records known here that it has not sent yet (`FolderEngine+Refetch`).
            try db.execute(sql: """
                CREATE TABLE movedAside (
                    recordName TEXT PRIMARY KEY NOT NULL,
                    path TEXT NOT NULL               -- where the engine put it
                ) WITHOUT ROWID;
                CREATE TABLE unconfirmed (
                    recordName TEXT PRIMARY KEY NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v10: every unanswered version of a record") { db in
            // Several saves of one record may go unanswered in a row (an edit, then a move):
            // any of them may be the one that landed, so each is remembered until an answer.
            try db.execute(sql: """
                CREATE TABLE uncertainSaveVersion (
                    recordName TEXT NOT NULL,
                    record BLOB NOT NULL,            -- one version as sent, compact-coded
                    PRIMARY KEY (recordName, record)
                ) WITHOUT ROWID;
                INSERT INTO uncertainSaveVersion (recordName, record) SELECT recordName, record FROM uncertainSave;
                DROP TABLE uncertainSave;
                ALTER TABLE uncertainSaveVersion RENAME TO uncertainSave;
                """)
        }
        migrator.registerMigration("v11: items a folder's move carried along") { db in
            // Items a remote folder move carried along on disk are looked at once the fetch
            // is applied (`FolderEngine+Fetch`), also after a crash in between.
            try db.execute(sql: """
                CREATE TABLE carriedAlong (
                    recordName TEXT PRIMARY KEY NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v12: pending items found in path order") { db in
            // A page of pending items is read in path order after a cursor: without an index
            // holding only pending rows in that order, SQLite walked every row of the folder
            // for each page sent, even for one changed file (issue 25).
            try db.execute(sql: "CREATE INDEX item_sendable ON item(path, recordName) WHERE pending != 0")
        }
        migrator.registerMigration("v13: names by their extension") { db in
            // `name LIKE '*.jpg'` read every row of the metadata index (150 ms at 1,000,000
            // items); with the names' extensions indexed it reads the matching rows only
            // (`PredicateSQL.compile(_:indexedExtensions:columns:)`, issue 25).
            try db.execute(sql: "CREATE INDEX item_name_extension ON item(\(PredicateSQL.nameExtension(of: "name"))) WHERE pending <> 2")
        }
        migrator.registerMigration("v14: the conflict log") { db in
            // Every conflict the engine meets and how it ended — merged, kept both, settled by
            // the folder's policy, resolved by a person (`docs-status conflicts --log`,
            // `FolderEngine.logConflict`). Rows are only added, and pruned with the versions.
            try db.execute(sql: """
                CREATE TABLE conflictLog (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    time INTEGER NOT NULL,           -- nanoseconds since 1970
                    folder TEXT NOT NULL,            -- the folder's id (zone name)
                    path TEXT NOT NULL,              -- the original's path
                    copyPath TEXT,                   -- the conflict copy's path, if any
                    localDevice TEXT NOT NULL,       -- the device that logged it
                    remoteDevice TEXT,               -- the other side's device, if known
                    outcome TEXT NOT NULL,           -- ConflictOutcome's raw value
                    detail TEXT
                );
                CREATE INDEX conflictLog_by_time ON conflictLog(time);
                """)
        }
        migrator.registerMigration("v15: records and asset references kept as JSON rewritten in the compact form") { db in
            // Rows written before the compact form existed held the acknowledged record and
            // the asset reference as their wire JSON, and every read of one fell back to
            // JSONDecoder. They are rewritten once, here, so the readers know one form; a
            // value too damaged to read stays as it was (and a read of it fails, as it did).
            try db.rewriteLegacyJSON(in: "item", column: "acked", key: ["recordName"], CompactCoding.recordFromLegacyJSON)
            try db.rewriteLegacyJSON(in: "item", column: "asset", key: ["recordName"], CompactCoding.assetReferenceFromLegacyJSON)
            try db.rewriteLegacyJSON(in: "shadowedFolder", column: "record", key: ["recordName"], CompactCoding.recordFromLegacyJSON)
            // The record is part of this table's key: a rewritten version equal to one kept
            // already in the compact form takes its place.
            try db.rewriteLegacyJSON(in: "uncertainSave", column: "record", key: ["recordName", "record"], replacing: true,
                                     CompactCoding.recordFromLegacyJSON)
        }
        migrator.registerMigration("v16: the account that saved each item's server version") { db in
            // `lastEditorName` (SPEC §11) as a column, for predicates: the acknowledged record's
            // `lastEditorName`, kept with it (`IndexItem.boundColumns`, `settleItem`). Records
            // acknowledged before had none. The covering index of metadata queries holds it too.
            try db.execute(sql: """
                ALTER TABLE item ADD COLUMN lastEditorName TEXT;
                DROP INDEX item_metadata;
                CREATE INDEX item_metadata ON item(path, name, size, mtime, kind, downloadingStatus, isDownloading,
                    percentDownloaded, isUploading, isUploaded, percentUploaded, downloadingError, uploadingError,
                    hasUnresolvedConflicts, pending, lastEditorName);
                """)
        }
        migrator.registerMigration("v17: the highest sealed version of each record of an encrypted folder") { db in
            // SPEC §13: a sealed record's version only grows. The highest one seen in a
            // fetched record or sent by this device, per record name, kept after its item
            // is gone: an older one offered later (a replay) is refused, and the next save
            // seals this + 1 (`SealedVersionLedger`). Empty for a plain folder.
            try db.execute(sql: """
                CREATE TABLE sealedVersion (
                    recordName TEXT PRIMARY KEY NOT NULL,
                    version INTEGER NOT NULL         -- the highest version seen or sent
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v18: files kept local on an on-demand folder") { db in
            // SPEC §14: `docs-status pin` (and `download`) keep a document local; the cache
            // limit never evicts it. By record name, so a pin follows its item's moves.
            try db.execute(sql: "CREATE TABLE pin (recordName TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID")
        }
        return migrator
    }
}

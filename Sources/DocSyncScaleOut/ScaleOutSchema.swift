import Logging
import PostgresNIO

/// The scale-out store's PostgreSQL schema, as named, append-only migrations: a migration
/// that has shipped is never edited, a change is a new one at the end. `ScaleOutMigrator`
/// applies what a database lacks, one instance at a time, so instances can be upgraded one
/// after another: each migration keeps the previous release working (new columns have
/// defaults, nothing an older release reads is removed in the same release).
///
/// Every user's data carries the user's `account` id. Within an account the model is the
/// embedded store's (`LocalBackendSchema`): one sequence per account orders its changes
/// (its row lock serializes the account's writers, so sequence order is commit order),
/// records and tombstones by zone, kept versions for Recently Deleted, and an index of
/// chunks, which lie in pack objects of the bucket.
enum ScaleOutSchema {
    struct Migration: Sendable {
        let name: String
        let sql: [String]
        /// Work in Swift after the statements, in the same transaction (a rewrite of rows
        /// that SQL alone cannot do).
        var rewrite: (@Sendable (PostgresConnection, Logger) async throws -> Void)?
    }

    static let migrations: [Migration] = [
        Migration(name: "v1: accounts, tokens, zones, records, history, chunks in packs", sql: [
            """
            CREATE TABLE account (
                id BIGSERIAL PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                created DOUBLE PRECISION NOT NULL,          -- seconds since 1970
                quota_bytes BIGINT,                         -- NULL: no limit
                seq BIGINT NOT NULL DEFAULT 0,              -- the account's change sequence
                chunk_count BIGINT NOT NULL DEFAULT 0,      -- usage counters, kept as chunks come and go
                chunk_bytes BIGINT NOT NULL DEFAULT 0,
                last_collected_at DOUBLE PRECISION NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE token (
                hash TEXT PRIMARY KEY,                      -- SHA-256 of the token, lowercase hex
                prefix TEXT NOT NULL,                       -- its first 8 hex digits, for the look-up
                account BIGINT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                created DOUBLE PRECISION NOT NULL,
                device TEXT                                 -- NULL: issued without a device name
            )
            """,
            "CREATE INDEX token_by_prefix ON token(prefix)",
            """
            CREATE TABLE zone (
                account BIGINT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                incarnation TEXT NOT NULL,                  -- new on every creation; tokens carry it
                last_seq BIGINT NOT NULL,                   -- sequence value of the zone's latest change
                compacted_through_seq BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (account, name)
            )
            """,
            """
            CREATE TABLE record (
                account BIGINT NOT NULL,
                zone TEXT NOT NULL,
                record_name TEXT NOT NULL,
                change_tag TEXT NOT NULL,
                seq BIGINT NOT NULL,
                body BYTEA NOT NULL,                        -- the record (CompactCoding)
                PRIMARY KEY (account, zone, record_name),
                FOREIGN KEY (account, zone) REFERENCES zone(account, name) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX record_by_seq ON record(account, zone, seq)",
            """
            CREATE TABLE tombstone (
                account BIGINT NOT NULL,
                zone TEXT NOT NULL,
                record_name TEXT NOT NULL,
                seq BIGINT NOT NULL,
                deleted_at DOUBLE PRECISION NOT NULL,       -- seconds since 1970, for compaction
                PRIMARY KEY (account, zone, record_name),
                FOREIGN KEY (account, zone) REFERENCES zone(account, name) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX tombstone_by_seq ON tombstone(account, zone, seq)",
            "CREATE INDEX tombstone_by_age ON tombstone(deleted_at)",
            """
            CREATE TABLE deleted_record (
                account BIGINT NOT NULL,
                zone TEXT NOT NULL,
                record_name TEXT NOT NULL,
                seq BIGINT NOT NULL,                        -- sequence value of the version kept
                deleted_at BIGINT NOT NULL,                 -- nanoseconds since 1970
                deleted_by TEXT NOT NULL,                   -- the deleting device, '' when unnamed
                body BYTEA NOT NULL,                        -- the record's last version (CompactCoding)
                PRIMARY KEY (account, zone, record_name),
                FOREIGN KEY (account, zone) REFERENCES zone(account, name) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX deleted_record_by_time ON deleted_record(account, zone, deleted_at)",
            "CREATE INDEX deleted_record_by_age ON deleted_record(deleted_at)",
            "CREATE INDEX deleted_record_by_seq ON deleted_record(account, seq)",
            """
            CREATE TABLE replaced_version (
                id BIGSERIAL PRIMARY KEY,
                account BIGINT NOT NULL,
                zone TEXT NOT NULL,
                record_name TEXT NOT NULL,
                seq BIGINT NOT NULL,                        -- sequence value of the version kept
                replaced_at BIGINT NOT NULL,                -- nanoseconds since 1970
                body BYTEA NOT NULL,                        -- the replaced version (CompactCoding)
                FOREIGN KEY (account, zone) REFERENCES zone(account, name) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX replaced_version_by_record ON replaced_version(account, zone, record_name)",
            "CREATE INDEX replaced_version_by_age ON replaced_version(replaced_at)",
            "CREATE INDEX replaced_version_by_seq ON replaced_version(account, seq)",
            """
            CREATE TABLE pack (
                id BIGSERIAL PRIMARY KEY,
                account BIGINT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                object_key TEXT NOT NULL UNIQUE,            -- the object in the bucket
                bytes BIGINT NOT NULL,                      -- the object's size
                created_at BIGINT NOT NULL                  -- milliseconds since 1970
            )
            """,
            "CREATE INDEX pack_by_account ON pack(account)",
            """
            CREATE TABLE chunk (
                account BIGINT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                digest BYTEA NOT NULL,                      -- 32 bytes of SHA-256
                pack BIGINT NOT NULL REFERENCES pack(id),
                "offset" BIGINT NOT NULL,
                length INTEGER NOT NULL,
                stored_at BIGINT NOT NULL,                  -- milliseconds since 1970: stored, or stored again
                PRIMARY KEY (account, digest)
            )
            """,
            "CREATE INDEX chunk_by_pack ON chunk(pack)",
            "CREATE INDEX chunk_by_age ON chunk(account, stored_at)",
        ]),
        Migration(name: "v2: rate limits shared by the instances", sql: [
            // Unlogged: a crash of the database empties it, which only forgets how fast
            // clients went lately; not worth a write-ahead log on every request.
            """
            CREATE UNLOGGED TABLE rate_bucket (
                key TEXT PRIMARY KEY,                       -- a token's hash, or "address:" and a client address
                tokens DOUBLE PRECISION NOT NULL,           -- requests that may go ahead now
                updated DOUBLE PRECISION NOT NULL,          -- the database's clock, seconds since 1970
                admitted BOOLEAN NOT NULL                   -- whether the last request took a token
            )
            """,
            "CREATE INDEX rate_bucket_by_age ON rate_bucket(updated)",
        ]),
        // Records that came from an embedded store of a release before the compact form
        // (`docsync-server migrate` copies bodies as they are) were kept as their wire JSON,
        // and every read of one fell back to JSONDecoder. They are rewritten once, by the one
        // instance holding the migration lock, so the readers know one form.
        Migration(name: "v3: records kept as JSON rewritten in the compact form", sql: [], rewrite: { connection, logger in
            try await ScaleOutLegacyJSONRows.rewrite(connection, logger: logger)
        }),
        // Who shares which zone with whom (SPEC §11): one row per participant of each shared
        // zone, never deleted (an ended entry says how it ended). Earlier releases ignore it.
        Migration(name: "v4: shares", sql: [
            """
            CREATE TABLE share_entry (
                owner TEXT NOT NULL,                        -- the account that owns the zone
                zone TEXT NOT NULL,                         -- the zone's name
                participant TEXT NOT NULL,                  -- the account it is shared with
                permission TEXT NOT NULL,                   -- readOnly | readWrite
                status TEXT NOT NULL,                       -- invited | accepted | declined | removed | left | stopped
                changed BIGINT NOT NULL,                    -- nanoseconds since 1970
                PRIMARY KEY (owner, zone, participant)
            )
            """,
            "CREATE INDEX share_entry_by_participant ON share_entry(participant)",
        ]),
        // A sealed chunk (SPEC §13) is stored under its id, a keyed MAC of content the store
        // never sees: body_digest is the SHA-256 of its bytes, checked on upload and on every
        // read; NULL for a plain chunk, whose digest is the SHA-256 of its bytes. An earlier
        // release ignores the column: it accepts no sealed chunk (its frame reader refuses
        // one), and while instances are upgraded one at a time it reports a sealed chunk
        // stored by a newer instance as corrupt (its collection stops at one rather than
        // sweep anything) instead of serving it unchecked.
        Migration(name: "v5: sealed chunks keep the SHA-256 of their body", sql: [
            "ALTER TABLE chunk ADD COLUMN body_digest BYTEA",
        ]),
        // A zone moved into another (SPEC §13: a folder turned encrypted) keeps its row,
        // emptied of records, history and kept versions, naming the zone it went to: every
        // call naming it then answers zoneMoved. NULL for a zone in use. An earlier release
        // ignores the column: while instances are upgraded one at a time it serves a moved
        // zone as an empty zone in use, so move zones only once every instance runs this one.
        Migration(name: "v6: a moved zone is kept as a redirect", sql: [
            "ALTER TABLE zone ADD COLUMN moved_to TEXT",
        ]),
    ]
}

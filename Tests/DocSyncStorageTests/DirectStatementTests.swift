import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB
import Testing

/// The per-chunk statements bound through SQLite's C API store and read exactly what
/// GRDB's own bindings do, report SQLite's errors, and leave their cached statement
/// usable by GRDB.
@Suite struct DirectStatementTests {
    static func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (digest BLOB PRIMARY KEY, name TEXT NOT NULL, a INTEGER NOT NULL, b INTEGER NOT NULL)")
        }
        return queue
    }

    static let digests = (0..<50).map { SHA256Digest(hashing: Data("chunk \($0)".utf8)) }

    @Test func whatIsBoundDirectlyReadsBackThroughGRDB() throws {
        let queue = try Self.database()
        try queue.write { db in
            let insert = try db.directStatement(sql: "INSERT INTO t (digest, name, a, b) VALUES (?, ?, ?, ?)")
            for (index, digest) in Self.digests.enumerated() {
                insert.bind(1, digest)
                insert.bind(2, "pack-\(index) é")
                insert.bind(3, Int64(index) * 1_000_000_007)
                insert.bind(4, -Int64(index))
                try insert.execute()
            }
        }
        let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT digest, name, a, b FROM t") }
        #expect(rows.count == Self.digests.count)
        for row in rows {
            let digest = try #require(SHA256Digest(bytes: row["digest"] as Data))
            let index = try #require(Self.digests.firstIndex(of: digest))
            #expect(row["name"] as String == "pack-\(index) é")
            #expect(row["a"] as Int64 == Int64(index) * 1_000_000_007)
            #expect(row["b"] as Int64 == -Int64(index))
        }
    }

    @Test func whatGRDBStoredReadsBackDirectly() throws {
        let queue = try Self.database()
        try queue.write { db in
            for (index, digest) in Self.digests.enumerated() {
                try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?, ?)", arguments: [Data(digest.bytes), "n\(index)", index, index + 1])
            }
        }
        let absent = SHA256Digest(hashing: Data("never stored".utf8))
        try queue.read { db in
            let probe = try db.directStatement(sql: "SELECT 1 FROM t WHERE digest = ?")
            let place = try db.directStatement(sql: "SELECT name, a, b FROM t WHERE digest = ?")
            for (index, digest) in Self.digests.enumerated() {
                probe.bind(1, digest)
                #expect(try probe.yieldsRow())
                place.bind(1, digest)
                let found = try place.firstRow { ($0.text(0), $0.integer(1), $0.integer(2)) }
                #expect(found?.0 == "n\(index)" && found?.1 == Int64(index) && found?.2 == Int64(index + 1))
            }
            probe.bind(1, absent)
            #expect(try !probe.yieldsRow())
            place.bind(1, absent)
            #expect(try place.firstRow { $0.text(0) } == nil)

            var names: [String] = []
            let all = try db.directStatement(sql: "SELECT name FROM t WHERE a >= ? ORDER BY a")
            all.bind(1, Int64(47))
            try all.forEachRow { names.append($0.text(0)) }
            #expect(names == ["n47", "n48", "n49"])
            // Run again: the statement was reset, and new bindings replace the old.
            names = []
            all.bind(1, Int64(49))
            try all.forEachRow { names.append($0.text(0)) }
            #expect(names == ["n49"])
        }
    }

    @Test func sqliteErrorsAreThrownAndTheStatementStaysUsable() throws {
        let queue = try Self.database()
        try queue.write { db in
            let insert = try db.directStatement(sql: "INSERT INTO t (digest, name, a, b) VALUES (?, ?, ?, ?)")
            insert.bind(1, Self.digests[0]); insert.bind(2, "first"); insert.bind(3, Int64(1)); insert.bind(4, Int64(1))
            try insert.execute()
            insert.bind(2, "duplicate")
            let error = try #require(throws: DatabaseError.self) { try insert.execute() }
            #expect(error.resultCode == .SQLITE_CONSTRAINT)
            // The same cached statement, now through GRDB, with other arguments.
            try db.cachedStatement(sql: "INSERT INTO t (digest, name, a, b) VALUES (?, ?, ?, ?)")
                .execute(arguments: [Data(Self.digests[1].bytes), "second", 2, 2])
        }
        let names = try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM t ORDER BY a") }
        #expect(names == ["first", "second"])
    }
}

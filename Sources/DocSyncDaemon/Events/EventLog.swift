import DocSyncCore
import Foundation
import GRDB
import Synchronization

/// The daemon's event stream on disk (`STATE_DIR/events.sqlite`, SQLite in WAL) and live
/// (SPEC §15, `docs-status events`).
///
/// What a caller may rely on: ids come from SQLite's AUTOINCREMENT, so they strictly
/// increase across restarts, also after old events were dropped; the last `kept` events
/// are kept (at least 1,000); `events(after:)` answers a reader whose next id is no longer
/// kept with a `gap` event first. Safe to use from any task.
final class EventLog: Sendable {
    /// How many events are kept.
    static let kept: Int64 = 10_000

    private let queue: DatabaseQueue
    private let listeners = Mutex<[UUID: AsyncStream<DaemonEvent>.Continuation]>([:])

    init(url: URL) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        queue = try DatabaseQueue(path: url.path, configuration: configuration)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE event (id INTEGER PRIMARY KEY AUTOINCREMENT, time REAL NOT NULL, kind TEXT NOT NULL,
                                    folder TEXT, path TEXT, message TEXT NOT NULL)
                """)
        }
        try migrator.migrate(queue)
    }

    /// Numbers, keeps and announces `drafts` (in order); returns them numbered.
    @discardableResult
    func append(_ drafts: [FolderStatusEvents.Draft], at time: Date = Date()) throws -> [DaemonEvent] {
        guard !drafts.isEmpty else { return [] }
        let events = try queue.write { db -> [DaemonEvent] in
            var numbered: [DaemonEvent] = []
            for draft in drafts {
                try db.execute(sql: "INSERT INTO event (time, kind, folder, path, message) VALUES (?, ?, ?, ?, ?)",
                               arguments: [time.timeIntervalSince1970, draft.kind.rawValue, draft.folder, draft.path, draft.message])
                numbered.append(DaemonEvent(id: db.lastInsertedRowID, time: time, kind: draft.kind, folder: draft.folder, path: draft.path, message: draft.message))
            }
            try db.execute(sql: "DELETE FROM event WHERE id <= ?", arguments: [db.lastInsertedRowID - Self.kept])
            return numbered
        }
        for listener in listeners.withLock({ Array($0.values) }) {
            for event in events { listener.yield(event) }
        }
        return events
    }

    /// The kept events after `after` (`nil` or 0: every one kept), oldest first, at most
    /// `limit`; a `gap` event first when events after `after` are no longer kept.
    func events(after: Int64?, limit: Int = 100_000) throws -> [DaemonEvent] {
        try queue.read { db in
            let after = after ?? 0
            var events: [DaemonEvent] = []
            if after > 0, let first = try Int64.fetchOne(db, sql: "SELECT MIN(id) FROM event"), first > after + 1 {
                events.append(DaemonEvent(id: first - 1, time: Date(), kind: .gap, message: "events \(after + 1) to \(first - 1) are no longer kept; the first kept is \(first)",
                                          firstAvailable: first))
            }
            let rows = try Row.fetchAll(db, sql: "SELECT id, time, kind, folder, path, message FROM event WHERE id > ? ORDER BY id LIMIT ?",
                                        arguments: [after, limit])
            events += rows.map { row in
                DaemonEvent(id: row["id"], time: Date(timeIntervalSince1970: row["time"]), kind: DaemonEvent.Kind(rawValue: row["kind"]) ?? .folderState,
                            folder: row["folder"], path: row["path"], message: row["message"])
            }
            return events
        }
    }

    /// The id of the newest event (0 when none was ever kept).
    func lastID() -> Int64 {
        (try? queue.read { db in try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'event'") }) ?? nil ?? 0
    }

    /// Every event appended from now on, until the stream is dropped.
    func live() -> AsyncStream<DaemonEvent> {
        let (stream, continuation) = AsyncStream<DaemonEvent>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        let id = UUID()
        listeners.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.listeners.withLock { _ = $0.removeValue(forKey: id) } }
        return stream
    }
}

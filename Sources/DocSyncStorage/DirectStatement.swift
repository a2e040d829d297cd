import DocSyncCore
import Foundation
import GRDB
import GRDBSQLite

/// A prepared statement run through SQLite's C API, its arguments bound in place.
///
/// For the statements a sync runs once per chunk — tens of thousands of times, inside one
/// access — GRDB's arguments (an array of boxed values and a `Data` per digest) and its
/// cursors cost as much as SQLite's own work. Each run binds every parameter, steps, and
/// resets the statement. Make one with `Database.directStatement(sql:)` and use it only
/// inside the access (`read`, `write`) that made it; run its SQL only through this type.
public struct DirectStatement {
    private let statement: Statement
    private var handle: OpaquePointer { statement.sqliteStatement }

    init(_ statement: Statement) { self.statement = statement }

    /// Binds the 32 bytes of `digest` as a blob to parameter `index` (1-based).
    public func bind(_ index: Int32, _ digest: SHA256Digest) {
        digest.withUnsafeBytes { raw in
            bound(sqlite3_bind_blob(handle, index, raw.baseAddress, 32, transient), index)
        }
    }

    /// Binds the 32 bytes of `digest`, or NULL when it is `nil`, to parameter `index` (1-based).
    public func bind(_ index: Int32, _ digest: SHA256Digest?) {
        if let digest { bind(index, digest) } else { bound(sqlite3_bind_null(handle, index), index) }
    }

    /// Binds `text` to parameter `index` (1-based).
    public func bind(_ index: Int32, _ text: String) {
        bound(text.withCString { sqlite3_bind_text(handle, index, $0, -1, transient) }, index)
    }

    /// Binds `value` to parameter `index` (1-based).
    public func bind(_ index: Int32, _ value: Int64) {
        bound(sqlite3_bind_int64(handle, index, value), index)
    }

    /// Binds `value` to parameter `index` (1-based).
    public func bind(_ index: Int32, _ value: Double) {
        bound(sqlite3_bind_double(handle, index, value), index)
    }

    /// Binds `value` as 1 or 0 (how GRDB stores a `Bool`) to parameter `index` (1-based).
    public func bind(_ index: Int32, _ value: Bool) {
        bind(index, Int64(value ? 1 : 0))
    }

    /// Binds `blob` to parameter `index` (1-based); an empty one stays a blob, not NULL.
    public func bind(_ index: Int32, _ blob: Data) {
        let code = blob.withUnsafeBytes { raw in
            raw.baseAddress.map { sqlite3_bind_blob(handle, index, $0, Int32(raw.count), transient) } ?? sqlite3_bind_zeroblob(handle, index, 0)
        }
        bound(code, index)
    }

    /// Binds `text`, or NULL when it is `nil`, to parameter `index` (1-based).
    public func bind(_ index: Int32, _ text: String?) {
        if let text { bind(index, text) } else { bound(sqlite3_bind_null(handle, index), index) }
    }

    /// Binds `blob`, or NULL when it is `nil`, to parameter `index` (1-based).
    public func bind(_ index: Int32, _ blob: Data?) {
        if let blob { bind(index, blob) } else { bound(sqlite3_bind_null(handle, index), index) }
    }

    /// Binding touches no file: it fails only for a parameter the SQL does not have, which
    /// is a programming error (GRDB treats it the same way).
    private func bound(_ code: Int32, _ index: Int32) {
        precondition(code == SQLITE_OK, "cannot bind parameter \(index) of \(statement.sql): SQLite code \(code)")
    }

    /// Runs the statement with the bound arguments: true when it yields a row.
    public func yieldsRow() throws -> Bool {
        defer { sqlite3_reset(handle) }
        return try step()
    }

    /// Runs the statement with the bound arguments to its end (an insert, an update).
    public func execute() throws {
        try forEachRow { _ in }
    }

    /// Runs the statement with the bound arguments, giving each row to `body` (columns
    /// through `text`, `integer` and `digest`).
    public func forEachRow(_ body: (DirectStatement) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        while try step() { try body(self) }
    }

    /// Runs the statement with the bound arguments and reads its first row with `read`
    /// (columns through `text` and `integer`); nil when it yields none.
    public func firstRow<T>(_ read: (DirectStatement) -> T) throws -> T? {
        defer { sqlite3_reset(handle) }
        return try step() ? read(self) : nil
    }

    /// Column `index` (0-based) of the current row, as text ("" for NULL).
    public func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        return String(cString: bytes)
    }

    /// Column `index` (0-based) of the current row, as an integer.
    public func integer(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` (0-based) of the current row, as a digest: `nil` unless it is a blob
    /// of 32 bytes.
    public func digest(_ index: Int32) -> SHA256Digest? {
        guard sqlite3_column_bytes(handle, index) == 32, let bytes = sqlite3_column_blob(handle, index) else { return nil }
        return SHA256Digest(bytes: UnsafeRawBufferPointer(start: bytes, count: 32))
    }

    private func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let message = sqlite3_db_handle(handle).flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }
}

/// SQLite copies what is bound with this destructor (`SQLITE_TRANSIENT`).
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

extension Database {
    /// The cached statement for `sql`, to run through `DirectStatement`.
    public func directStatement(sql: String) throws -> DirectStatement {
        DirectStatement(try cachedStatement(sql: sql))
    }
}

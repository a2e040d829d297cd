import DocSyncCore
import GRDB

/// The index as the engine's jobs reach it: errors as `SyncError`, and the change token.
extension FolderEngine {
    func readIndex<T>(_ body: (Database) throws -> T) throws(SyncError) -> T {
        do { return try index.readLatest(body) } catch let error as SyncError { throw error } catch {
            throw SyncError(.internalError, "could not read the index at \(index.url.path): \(error)")
        }
    }

    @discardableResult
    func writeIndex<T>(_ body: (Database) throws -> T) throws(SyncError) -> T {
        do { return try index.write(body) } catch let error as SyncError { throw error } catch {
            throw SyncError(.internalError, "could not update the index at \(index.url.path): \(error)")
        }
    }

    func loadToken() -> ChangeToken? {
        (try? index.readLatest { db in try db.changeToken() }) ?? nil
    }

    func storeToken(_ token: ChangeToken?) throws(SyncError) {
        try writeIndex { db in try db.setChangeToken(token) }
    }
}

import DocSyncCore
import DocSyncStorage
import GRDB
import Logging

/// One of the engine's jobs (`Reconciler`, `Observer`, `Executor`, `Fetcher`, `Sender`): a
/// value over the engine it works for, reaching the folder, the index and the backend
/// through it. A job owns no state between its runs: what it leaves for the loop goes into
/// the loop's state it is given (`EngineLoop`), what it leaves for later into the index.
protocol EngineJob: Sendable {
    var engine: FolderEngine { get }
}

extension EngineJob {
    var configuration: EngineConfiguration { engine.configuration }
    var environment: EngineEnvironment { engine.environment }
    var backend: any StorageBackend { engine.backend }
    var fileSystem: any FolderFileSystem { engine.fileSystem }
    var index: LocalIndex { engine.index }
    var logger: Logger { engine.logger }
    var versions: VersionStore { engine.versions }

    func readIndex<T>(_ body: (Database) throws -> T) throws(SyncError) -> T { try engine.readIndex(body) }
    @discardableResult
    func writeIndex<T>(_ body: (Database) throws -> T) throws(SyncError) -> T { try engine.writeIndex(body) }
    func absolute(_ path: RelativePath) -> String { engine.absolute(path) }
}

import DocSyncCore
import DocSyncS3
import DocSyncScaleOut
import DocSyncStorage
import Foundation
import Logging

extension ServerConfiguration {
    /// Opens the store the configuration names: the scale-out store when `scaleOut` is set
    /// (connecting to PostgreSQL and migrating its schema, one instance at a time), else the
    /// embedded store in the data directory. Throws a `SyncError` that names what to fix.
    public func openStore(logger: Logger = Logger(label: "docsync.server")) async throws(SyncError) -> any ServerStore {
        if let scaleOut {
            let database = try PostgresLocation(url: scaleOut.records, password: ProcessInfo.processInfo.environment["PGPASSWORD"])
            let bucket: S3Configuration
            do {
                bucket = try S3Configuration(url: scaleOut.chunks, credentialsFile: scaleOut.credentials)
            } catch {
                throw SyncError(.invalidArguments, "[storage] chunks: \(error.message)")
            }
            let store = try await ScaleOutStore.open(database: database, bucket: bucket, settings: storeSettings,
                                                     logger: Logger(label: "docsync.storage.scale-out"))
            logger.info("using the scale-out store", metadata: ["records": "\(database)", "chunks": "\(bucket)"])
            return ScaleOutServerStore(store: store)
        }
        guard let dataDirectory else {
            throw SyncError(.invalidArguments, "no data directory; pass --data DIR or name a scale-out store ([storage] records and chunks)")
        }
        return try EmbeddedServerStore(dataDirectory: dataDirectory, settings: storeSettings)
    }
}

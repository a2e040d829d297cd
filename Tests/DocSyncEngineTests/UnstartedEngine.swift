import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Logging

/// A `FolderEngine` on a fresh folder and embedded backend that is never run: a test
/// drives its steps itself, or only asks about its folder and index.
struct UnstartedEngine {
    let base: TemporaryDirectory
    let folder: URL
    let engine: FolderEngine

    init(_ label: String) throws {
        base = try TemporaryDirectory("docsync-\(label)")
        folder = base.url.appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var logger = Logger(label: "test.\(label)")
        logger.logLevel = .warning
        let configuration = EngineConfiguration(
            zone: ZoneID("Docs"), root: folder, stateDirectory: base.url.appendingPathComponent("state"), device: "alpha",
            conflictPolicy: .keepBoth, onDemand: false, maxFileSize: 50_000_000,
            retryPolicy: RetryPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(300), multiplier: 2),
            safetyNetInterval: .seconds(30), transferConcurrency: 2)
        let backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        engine = try FolderEngine(configuration: configuration, backend: backend, logger: logger)
    }
}

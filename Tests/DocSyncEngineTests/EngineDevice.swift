import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Logging

/// A device in one test process: a folder and a `FolderEngine` running on its own task,
/// told about local changes by `rescan()` (no inotify here: the watcher has its own
/// tests) and about remote ones by the backend's notification stream.
final class EngineDevice: Sendable {
    let name: String
    let folder: URL
    let engine: FolderEngine
    private let tasks: [Task<Void, Never>]

    init(name: String, base: URL, backend: any StorageBackend, zone: ZoneID = ZoneID("Docs"), policy: ConflictPolicy = .keepBoth, maxFileSize: Int64 = 50_000_000, onDemand: Bool = false,
         transferConcurrency: Int = 8, textMerge: TextMergeRule? = .standard, deleteBrake: DeleteBrake = DeleteBrake(),
         encryption: FolderKeySource? = nil) throws {
        self.name = name
        folder = base.appendingPathComponent("\(name)-folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var logger = Logger(label: "test.\(name)")
        logger.logLevel = .warning
        var configuration = EngineConfiguration(
            zone: zone, root: folder, stateDirectory: base.appendingPathComponent("\(name)-state"), device: name,
            conflictPolicy: policy, onDemand: onDemand, maxFileSize: maxFileSize, textMerge: textMerge, deleteBrake: deleteBrake,
            retryPolicy: RetryPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(300), multiplier: 2),
            safetyNetInterval: .seconds(30), transferConcurrency: transferConcurrency)
        configuration.encryption = encryption
        let engine = try FolderEngine(configuration: configuration, backend: backend, logger: logger)
        self.engine = engine
        let notifications = backend.changeNotifications()
        tasks = [
            Task { await engine.run() },
            Task {
                for await notification in notifications where notification.zones.contains(zone) { engine.noteRemoteChange() }
            },
        ]
    }

    deinit { for task in tasks { task.cancel() } }

    func stop() { for task in tasks { task.cancel() } }

    /// Tells the engine to compare the whole folder with its index (what the watcher would report).
    func rescan() { engine.noteLocal([.rescan("", reason: "test")]) }

    func file(_ relative: String) -> URL { folder.appendingPathComponent(relative) }

    func write(_ relative: String, _ text: String) throws {
        try text.write(to: file(relative), atomically: false, encoding: .utf8)
        rescan()
    }

    func read(_ relative: String) -> String? {
        FileManager.default.contents(atPath: file(relative).path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Names in the folder's root, sorted.
    /// The names at the folder's top level, less its root marker (never synced, one per device).
    func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0 != IgnoreRules.rootMarkerName }.sorted()
    }

    var status: FolderStatus { engine.status() }

    /// True when this device's version store holds a file with `text`.
    func keepsVersion(_ text: String) -> Bool {
        let versions = folder.deletingLastPathComponent().appendingPathComponent("\(name)-state/versions")
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: versions.path)) ?? []
        return files.contains { FileManager.default.contents(atPath: versions.appendingPathComponent($0).path) == Data(text.utf8) }
    }
}

/// Both folders hold the same names with the same contents (recursively), their root
/// markers aside (never synced, one per device). Names are compared as bytes: two that
/// differ only in Unicode normalization are two names.
func sameTrees(_ a: EngineDevice, _ b: EngineDevice) -> Bool {
    let fm = FileManager.default
    func paths(_ device: EngineDevice) -> [PathKey]? {
        (try? fm.subpathsOfDirectory(atPath: device.folder.path))?.filter { $0 != IgnoreRules.rootMarkerName }.map { PathKey($0) }.sorted()
    }
    guard let left = paths(a), let right = paths(b), left == right else { return false }
    return left.allSatisfy { fm.contents(atPath: a.file($0.string).path) == fm.contents(atPath: b.file($0.string).path) }
}

extension EngineDevice {
    /// Makes this device unable to fetch through `faulty` (its backend), and returns once one
    /// of its fetches has been refused: a fetch that began before the plan changed, which
    /// could still bring news, has finished by then — the engine fetches one at a time.
    /// False when no fetch was refused within a minute.
    func cutOffFromFetching(through faulty: FaultInjectingBackend) async -> Bool {
        let refusedBefore = faulty.injectedFaults
        faulty.setPlan(FaultPlan(rules: [FaultRule([.fetchChanges], .fromCall(1), .fail(SyncError(.networkUnavailable, "injected")))]))
        engine.noteRemoteChange()
        return await eventually(timeout: .seconds(60)) { faulty.injectedFaults > refusedBefore }
    }
}

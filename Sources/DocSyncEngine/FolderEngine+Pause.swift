import DocSyncCore
import Foundation

/// Pausing a folder (SPEC §15, `docs-status pause`): nothing is sent or fetched until it is
/// resumed or the pause ends; kept across restarts in the folder's state directory.
extension FolderEngine {
    /// The file that keeps a pause across restarts: the end as seconds since 1970, or
    /// `forever`.
    var pauseFile: URL { configuration.stateDirectory.appendingPathComponent("paused") }

    /// Pauses the folder until `until` (`nil`: until resumed), kept across restarts.
    public func pause(until: Date?) throws(SyncError) {
        let end = until ?? .distantFuture
        do {
            try Data((until.map { String($0.timeIntervalSince1970) } ?? "forever").utf8).write(to: pauseFile, options: .atomic)
        } catch {
            throw SyncError(.internalError, "cannot keep the pause in \(pauseFile.path): \(error.localizedDescription)")
        }
        updateLive { live in
            live.pausedUntil = end
            live.state = .paused
            live.message = Self.pauseMessage(until: end)
        }
        logger.notice("paused", metadata: ["folder": "\(configuration.zone.name)", "until": "\(until.map { "\($0)" } ?? "resumed")"])
        wake.fire()
    }

    /// Resumes a paused folder (nothing when it is not paused): what changed meanwhile is
    /// compared, fetched and sent at once.
    public func resume() {
        try? FileManager.default.removeItem(at: pauseFile)
        let was = updateLive { live -> Date? in
            defer { live.pausedUntil = nil }
            return live.pausedUntil
        }
        guard was != nil else { return }
        logger.notice("resumed", metadata: ["folder": "\(configuration.zone.name)"])
        showWorking(.scanning)
        requestSync()
    }

    /// When the pause ends, or `nil` when the folder is not paused (a pause that ended is
    /// resumed here).
    func pausedUntil() -> Date? {
        guard let until = published.withLock({ $0.live.pausedUntil }) else { return nil }
        if until <= Date() {
            resume()
            return nil
        }
        return until
    }

    /// What status says of a folder paused until `until`.
    static func pauseMessage(until: Date) -> String {
        until == .distantFuture ? "paused until 'docs-status resume'" : "paused until \(ISO8601DateFormatter().string(from: until)) or 'docs-status resume'"
    }

    /// Whether the folder is paused now.
    public var isPaused: Bool { published.withLock { $0.live.pausedUntil.map { $0 > Date() } ?? false } }

    /// Reads a pause kept by an earlier run (called once, when the engine is made).
    func loadPause() {
        guard let text = try? String(contentsOf: pauseFile, encoding: .utf8) else { return }
        let until = text == "forever" ? Date.distantFuture : Double(text).map(Date.init(timeIntervalSince1970:))
        guard let until, until > Date() else {
            try? FileManager.default.removeItem(at: pauseFile)
            return
        }
        updateLive { $0.pausedUntil = until }
    }
}

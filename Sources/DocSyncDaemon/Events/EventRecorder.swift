import DocSyncCore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Turns what the daemon's folders do into events (SPEC §15): every `interval` it compares
/// a snapshot of the folders' statuses with the one before (`FolderStatusEvents`) and
/// appends what changed to the log; `started` and `stopped` mark the daemon's own life.
struct EventRecorder: Service {
    let log: EventLog
    let interval: Duration
    let statuses: @Sendable () -> [FolderStatus]
    /// Where each snapshot is left for other readers (the desktop notifications).
    let latest: LatestFolderStatuses
    let logger: Logger

    func run() async throws {
        let folders = statuses()
        record([.init(kind: .started, message: "docsyncd started with \(folders.count) folder\(folders.count == 1 ? "" : "s"): "
                      + folders.map(\.id).joined(separator: ", "))])
        await cancelWhenGracefulShutdown {
            var previous: [FolderStatus] = []
            while !Task.isCancelled {
                let current = statuses()
                latest.current = current
                record(FolderStatusEvents.changes(from: previous, to: current))
                previous = current
                do { try await Task.sleep(for: interval) } catch { break }
            }
        }
        record([.init(kind: .stopped, message: "docsyncd stopped")])
    }

    private func record(_ drafts: [FolderStatusEvents.Draft]) {
        do { try log.append(drafts) } catch {
            logger.error("cannot keep events in the state directory", metadata: ["error": "\(error)"])
        }
    }
}

/// The folders' statuses as the event recorder last took them (none before its first look).
final class LatestFolderStatuses: Sendable {
    private let statuses = Mutex<[FolderStatus]>([])

    var current: [FolderStatus] {
        get { statuses.withLock { $0 } }
        set { statuses.withLock { $0 = newValue } }
    }
}

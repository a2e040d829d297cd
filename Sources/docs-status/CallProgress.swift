import DocSyncControl
import DocSyncCore
import Foundation
import Synchronization

/// What the long calls draw while they are outstanding (`ProgressPoller`). The control
/// protocol answers these calls once, at the end; their progress is read from the daemon's
/// own state on a second connection, so each bar shows only what the daemon says:
///
/// - `wait`: the pending uploads and downloads of every folder (`status`), as bytes when
///   any are pending, else as items; what has left the pending counts since the bar
///   started is done, and work arriving meanwhile grows the total.
/// - `download`: the placeholders the call concerns (the same `query` or `ls` asked before
///   the call), each done once it is no longer a placeholder, a file in flight by its
///   percentage. When a named directory's contents are not all known (`ls` lists one level),
///   or the call concerns no placeholder, the line says what runs and for how long.
/// - `recover`, `deletions --restore`: the items done of those the call concerns, as the
///   folders' statuses show their running action (`FolderActivity`); before the daemon
///   shows it (choosing what to recover asks the backend first), the line says what runs and
///   for how long.
enum CallProgress {
    typealias Sampler = @Sendable (Duration) async -> ProgressSample?

    /// The line of a call whose progress the daemon does not show: `WORDS (12 s)`.
    static func activity(_ words: String) -> Sampler {
        { elapsed in ProgressSample(done: 0, total: 0, label: "\(words) (\(ProgressBar.elapsed(elapsed)))") }
    }

    /// Whether a call run with `json` draws progress at all: nothing is asked ahead of a
    /// call that draws none.
    static func draws(json: Bool) -> Bool { ProgressLine.shared.enabled && !json }

    /// `recover`'s and `deletions --restore`'s bar: the `action` running in the folders.
    static func action(_ action: String, _ client: ControlClient, words: String) -> Sampler {
        let waiting = activity(words)
        return { elapsed in
            guard let status = try? await client.send(.status, timeout: .seconds(10)).daemonStatus,
                  let sample = sample(of: action, in: status) else { return await waiting(elapsed) }
            return sample
        }
    }

    /// The progress of `action` over every folder running it, `nil` when none shows it.
    static func sample(of action: String, in status: DaemonStatus) -> ProgressSample? {
        let running = status.folders.compactMap(\.activity).filter { $0.action == action }
        guard !running.isEmpty else { return nil }
        let done = running.reduce(0) { $0 + $1.done }, total = running.reduce(0) { $0 + $1.total }
        return ProgressSample(done: Int64(done), total: Int64(total), label: "\(action): \(done) of \(total) item\(total == 1 ? "" : "s")")
    }

    // MARK: wait

    /// `wait`'s bar: the pending transfers of every folder.
    static func wait(_ client: ControlClient) -> Sampler {
        let tracker = PendingTracker()
        return { _ in
            guard let status = try? await client.send(.status, timeout: .seconds(10)).daemonStatus else { return nil }
            return tracker.sample(status)
        }
    }

    /// Pending work seen so far, per folder and direction: what left a pending count is
    /// done; what arrived grows the total.
    final class PendingTracker: Sendable {
        private struct Counts {
            /// Items and bytes pending at the last sample, by folder id and direction.
            var previous: [String: (items: Int64, bytes: Int64)] = [:]
            var doneItems: Int64 = 0
            var doneBytes: Int64 = 0
        }

        private let counts = Mutex(Counts())

        func sample(_ status: DaemonStatus) -> ProgressSample {
            var pending: [String: (items: Int64, bytes: Int64)] = [:]
            for folder in status.folders {
                pending["↑" + folder.id] = (Int64(max(0, folder.pendingUploads)), max(0, folder.pendingUploadBytes))
                pending["↓" + folder.id] = (Int64(max(0, folder.pendingDownloads)), max(0, folder.pendingDownloadBytes))
            }
            let (doneItems, doneBytes) = counts.withLock { counts -> (Int64, Int64) in
                for (key, now) in pending {
                    guard let before = counts.previous[key] else { continue }
                    counts.doneItems += max(0, before.items - now.items)
                    counts.doneBytes += max(0, before.bytes - now.bytes)
                }
                counts.previous = pending
                return (counts.doneItems, counts.doneBytes)
            }
            let uploads = status.folders.reduce(Int64(0)) { $0 + Int64(max(0, $1.pendingUploads)) }
            let downloads = status.folders.reduce(Int64(0)) { $0 + Int64(max(0, $1.pendingDownloads)) }
            let uploadBytes = status.folders.reduce(Int64(0)) { $0 + max(0, $1.pendingUploadBytes) }
            let downloadBytes = status.folders.reduce(Int64(0)) { $0 + max(0, $1.pendingDownloadBytes) }
            let items = uploads + downloads, bytes = uploadBytes + downloadBytes
            var parts: [String] = []
            if uploads > 0 { parts.append("\(uploads) to send" + (uploadBytes > 0 ? " (\(Format.bytes(uploadBytes)))" : "")) }
            if downloads > 0 { parts.append("\(downloads) to apply" + (downloadBytes > 0 ? " (\(Format.bytes(downloadBytes)))" : "")) }
            if parts.isEmpty {
                let busy = status.folders.filter { ![.idle, .detached].contains($0.state) }
                parts.append(busy.isEmpty ? "settling" : busy.map { "\($0.id) \($0.state.rawValue)" }.joined(separator: ", "))
            }
            let label = "waiting: " + parts.joined(separator: ", ")
            if doneBytes + bytes > 0 { return ProgressSample(done: doneBytes, total: doneBytes + bytes, label: label) }
            return ProgressSample(done: doneItems, total: doneItems + items, label: label)
        }
    }

    // MARK: download

    /// `download`'s bar, from the placeholders the call concerns now (asked before the
    /// call); the line without a bar when they cannot all be known.
    static func download(_ client: ControlClient, paths: [String], predicate: String?) async -> Sampler {
        let fallback = activity("downloading")
        guard let before = await DownloadTargets.ask(client, paths: paths, predicate: predicate),
              let targets = DownloadTargets(before) else { return fallback }
        return { _ in
            guard let now = await DownloadTargets.ask(client, paths: paths, predicate: predicate) else { return nil }
            return targets.sample(now)
        }
    }

    /// The placeholders a download concerns, by folder and path, with their sizes.
    struct DownloadTargets: Sendable {
        struct Key: Hashable, Sendable {
            var folder: String
            var path: String
        }

        let sizes: [Key: Int64]

        /// The placeholders among `items`; `nil` when there are none, or when `items` holds a
        /// folder (a named directory: what is below its first level is not listed).
        init?(_ items: [ItemStatus]) {
            guard !items.contains(where: { $0.kind == RecordType.folder.rawValue }) else { return nil }
            var sizes: [Key: Int64] = [:]
            for item in items where Self.isPlaceholder(item) { sizes[Key(folder: item.folder, path: item.path)] = max(0, item.size) }
            guard !sizes.isEmpty else { return nil }
            self.sizes = sizes
        }

        static func isPlaceholder(_ item: ItemStatus) -> Bool {
            item.kind == RecordType.document.rawValue && item.downloadingStatus == "notDownloaded"
        }

        /// The items the call names now: the predicate's matches and the paths' listing
        /// (a predicate the daemon refuses is the call's own error to report: `nil` here).
        static func ask(_ client: ControlClient, paths: [String], predicate: String?) async -> [ItemStatus]? {
            var items: [ItemStatus] = []
            if let predicate {
                guard let found = try? await client.send(.query(predicate: predicate, watch: false), timeout: .seconds(30)).itemList else { return nil }
                items += found
            }
            if !paths.isEmpty {
                guard let found = try? await client.send(.list(paths: paths), timeout: .seconds(30)).itemList else { return nil }
                items += found
            }
            return items
        }

        /// How far the download is, given the items as they are `now`: a target no longer a
        /// placeholder (or gone) is done, one downloading counts its percentage of its bytes.
        func sample(_ now: [ItemStatus]) -> ProgressSample {
            var current: [Key: ItemStatus] = [:]
            for item in now { current[Key(folder: item.folder, path: item.path)] = item }
            var doneFiles: Int64 = 0, doneBytes: Int64 = 0, totalBytes: Int64 = 0
            for (key, size) in sizes {
                totalBytes += size
                guard let item = current[key], Self.isPlaceholder(item) else {
                    doneFiles += 1
                    doneBytes += size
                    continue
                }
                if item.isDownloading, item.percentDownloaded.isFinite {
                    doneBytes += Int64(Double(size) * min(100, max(0, item.percentDownloaded)) / 100)
                }
            }
            let files = Int64(sizes.count)
            let label = "downloading \(doneFiles) of \(Format.count(Int(files), "file"))"
                + (totalBytes > 0 ? " (\(Format.bytes(doneBytes)) of \(Format.bytes(totalBytes)))" : "")
            return totalBytes > 0
                ? ProgressSample(done: doneBytes, total: totalBytes, label: label)
                : ProgressSample(done: doneFiles, total: files, label: label)
        }
    }
}

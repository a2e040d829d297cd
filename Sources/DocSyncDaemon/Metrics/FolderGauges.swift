import CoreMetrics
import DocSyncCore
import Foundation

/// One folder's gauges: its status at the last scrape (state, counts, problems by kind).
///
/// What a caller may rely on: made once per folder, they hold a fixed set of series
/// (one per state, one per problem kind, six counts), whatever the folder holds; `remove`
/// takes them out of the exposition (a folder the daemon no longer runs).
struct FolderGauges: Sendable {
    private let states: [(FolderState, Meter)]
    private let items, pendingUploads, pendingUploadBytes, pendingDownloads, pendingDownloadBytes, conflicts: Meter
    private let problems: [(ProblemKind, Meter)]

    init(folder: String, in registry: MetricsRegistry) {
        let labels = [("folder", folder)]
        states = FolderState.allCases.map { ($0, registry.meter(.state, labels + [("state", Self.label(of: $0))])) }
        items = registry.meter(.items, labels)
        pendingUploads = registry.meter(.pendingUploads, labels)
        pendingUploadBytes = registry.meter(.pendingUploadBytes, labels)
        pendingDownloads = registry.meter(.pendingDownloads, labels)
        pendingDownloadBytes = registry.meter(.pendingDownloadBytes, labels)
        conflicts = registry.meter(.conflicts, labels)
        problems = ProblemKind.allCases.map { ($0, registry.meter(.problems, labels + [("kind", $0.rawValue)])) }
    }

    /// Sets every gauge from `status`.
    func update(from status: FolderStatus) {
        for (state, meter) in states { meter.set(state == status.state ? 1 : 0) }
        items.set(status.items)
        pendingUploads.set(status.pendingUploads)
        pendingUploadBytes.set(status.pendingUploadBytes)
        pendingDownloads.set(max(0, status.pendingDownloads))
        pendingDownloadBytes.set(max(0, status.pendingDownloadBytes))
        conflicts.set(status.conflicts)
        let counts = ProblemKind.counts(in: status)
        for (kind, meter) in problems { meter.set(counts[kind] ?? 0) }
    }

    /// Takes every gauge out of the registry.
    func remove() {
        for (_, meter) in states { meter.destroy() }
        for meter in [items, pendingUploads, pendingUploadBytes, pendingDownloads, pendingDownloadBytes, conflicts] { meter.destroy() }
        for (_, meter) in problems { meter.destroy() }
    }

    /// A state as a label value: its name in `docs-status`, spaces as underscores
    /// (`deletions_held`, `no_longer_shared`).
    static func label(of state: FolderState) -> String {
        state.rawValue.replacingOccurrences(of: " ", with: "_")
    }
}

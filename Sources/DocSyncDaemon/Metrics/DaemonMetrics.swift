import DocSyncCore
import DocSyncEngine
import Synchronization

/// The daemon's metrics (SPEC §15), in Prometheus's text format for `/metrics`: per folder
/// (label `folder`, the folder's id as configured), its state, counts and problems by kind
/// as its status shows them at the scrape, and the counters and histograms its engine
/// measures (bytes sent and received, scan and fetch durations, push reconnects). The
/// families are listed in `MetricFamily`.
///
/// Built on swift-metrics handles over a swift-prometheus registry of this daemon's own
/// (`MetricsRegistry`): nothing goes through the process-wide `MetricsSystem`.
///
/// What a caller may rely on:
/// - `exposition()` passes `promtool check metrics` (every family has its `# HELP` and
///   `# TYPE`; counters end in `_total`);
/// - no label value is a path or a file name: `folder` is the folder's id, the others come
///   from fixed sets (`state`: the folder states; `kind`: `ProblemKind`; `scope`: `full`,
///   `changes`);
/// - a folder has a fixed number of series, whatever it holds (84: 11 states, 6 counts, 11
///   problem kinds, 3 counters, 3 histograms of 15 or 14 buckets);
/// - counters never decrease within the daemon's run, also when a folder is stopped and
///   started again (it records into the same counters); a folder the daemon no longer runs
///   keeps its counters and histograms but loses its gauges;
/// - what an engine measured before its folder was first seen here (at `init` or at a
///   scrape) is counted when it is (`EngineMetrics` keeps it back).
///
/// A scrape reads each folder's status once (what the event recorder does every 0.5 s), so
/// it costs about as much as a `docs-status` call; two scrapes run one after the other.
final class DaemonMetrics: Sendable {
    private let registry = MetricsRegistry()
    private let folders: @Sendable () -> [FolderService]
    /// The gauges of the folders seen at the last scrape, by folder id.
    private let gauges = Mutex<[String: FolderGauges]>([:])

    /// `folders`: the daemon's folders now (`{ folderSet.all }`), asked at `init` and at
    /// every scrape; their engines' measurements are taken from the first time a folder is seen.
    init(folders: @escaping @Sendable () -> [FolderService]) {
        self.folders = folders
        attach(folders())
    }

    /// Every series now, in Prometheus's text format (version 0.0.4; serve it as
    /// `text/plain; version=0.0.4; charset=utf-8`).
    func exposition() -> String {
        let running = folders()
        attach(running)
        let statuses = running.map { (id: Self.label(of: $0), status: $0.status()) }
        return gauges.withLock { gauges in
            var seen: Set<String> = []
            for (id, status) in statuses where seen.insert(id).inserted {
                if gauges[id] == nil { gauges[id] = FolderGauges(folder: id, in: registry) }
                gauges[id]?.update(from: status)
            }
            for id in gauges.keys where !seen.contains(id) {
                gauges.removeValue(forKey: id)?.remove()
            }
            return registry.exposition()
        }
    }

    /// Sends the measurements of each folder's engine to its sink (once per engine).
    private func attach(_ folders: [FolderService]) {
        for folder in folders {
            let id = Self.label(of: folder)
            folder.engine.metrics.attach { FolderMetricsSink(folder: id, in: registry) }
        }
    }

    /// A folder's `folder` label: its id as configured (the zone name of a folder of the
    /// account's own, `OWNER/ID` of a share) — unique among the daemon's folders.
    static func label(of folder: FolderService) -> String { folder.folder.id }
}

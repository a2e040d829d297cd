import CoreMetrics
import DocSyncEngine

/// Where one folder's engine measurements go: its counters and histograms in the daemon's
/// registry (`docsync_folder_sent_bytes_total`, `…_received_bytes_total`,
/// `…_scan_duration_seconds`, `…_fetch_duration_seconds`, `…_push_reconnects_total`).
///
/// What a caller may rely on: every series exists (at 0) from the moment the sink is made;
/// a sink made again for the same folder (the folder started again in this daemon run)
/// records into the same collectors, so its counters go on from where they were.
struct FolderMetricsSink: EngineMetricsSink {
    private let sent, received, reconnects: Counter
    private let scans: [ScanScope: Timer]
    private let fetches: Timer

    init(folder: String, in registry: MetricsRegistry) {
        let labels = [("folder", folder)]
        sent = registry.counter(.sentBytes, labels)
        received = registry.counter(.receivedBytes, labels)
        reconnects = registry.counter(.pushReconnects, labels)
        scans = Dictionary(uniqueKeysWithValues: ScanScope.allCases.map { scope in
            (scope, registry.timer(.scanDuration, labels + [("scope", scope.rawValue)], buckets: MetricFamily.scanBuckets))
        })
        fetches = registry.timer(.fetchDuration, labels, buckets: MetricFamily.fetchBuckets)
    }

    func record(_ measurement: EngineMeasurement) {
        switch measurement {
        case .sent(let bytes): sent.increment(by: max(0, bytes))
        case .received(let bytes): received.increment(by: max(0, bytes))
        case .pushReconnected: reconnects.increment()
        case .scanned(let scope, let took): scans[scope]?.recordNanoseconds(Self.nanoseconds(took))
        case .fetched(let took): fetches.recordNanoseconds(Self.nanoseconds(took))
        }
    }

    /// `duration` in whole nanoseconds, never negative.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow || overflowAgain ? .max : total
    }
}

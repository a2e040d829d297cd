import DocSyncCore
import DocSyncStorage
import Foundation
import Metrics
import Prometheus
import Synchronization

/// docsync-server's metrics, kept with swift-metrics and served in Prometheus's text format
/// on `GET /metrics` (no token: an operator's scraper reads it; it names routes, never users):
/// - `hb_requests` (a counter) and `http_server_request_duration` (a histogram, in seconds)
///   by route, method and status, from Hummingbird's `MetricsMiddleware`;
/// - `docsync_request_bytes_total` and `docsync_response_bytes_total`: bodies in and out;
/// - `docsync_push_streams_open`: notification streams open now;
/// - `docsync_errors_total` by `SyncError` code (`internalError`, `serviceUnavailable`… are
///   the store's failures; the others are clients' mistakes or limits);
/// - `docsync_gc_runs_total`, `docsync_gc_chunks_removed_total`, `docsync_gc_bytes_removed_total`
///   and `docsync_gc_duration_seconds` for the collections this instance ran.
///
/// The Prometheus factory is installed for the whole process once (`bootstrap`, by
/// `docsync-server serve`); without it the figures are recorded nowhere and `/metrics` is empty.
public struct ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
    }

    private static let bootstrapped = Mutex(false)

    /// Makes every swift-metrics figure of the process go to `registry` (once per process;
    /// later calls do nothing).
    public func bootstrap() {
        let first = Self.bootstrapped.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(10), .seconds(60),
        ]
        MetricsSystem.bootstrap(factory)
    }

    /// The text a scraper reads.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }

    // MARK: Figures

    static let requestBytes = Metrics.Counter(label: "docsync_request_bytes_total")
    static let responseBytes = Metrics.Counter(label: "docsync_response_bytes_total")
    static let pushStreams = Metrics.Meter(label: "docsync_push_streams_open")
    static let gcRuns = Metrics.Counter(label: "docsync_gc_runs_total")
    static let gcChunks = Metrics.Counter(label: "docsync_gc_chunks_removed_total")
    static let gcBytes = Metrics.Counter(label: "docsync_gc_bytes_removed_total")
    static let gcDuration = Metrics.Timer(label: "docsync_gc_duration_seconds", preferredDisplayUnit: .seconds)

    private static let errors = Mutex<[SyncError.Code: Metrics.Counter]>([:])

    /// Counts an error answered to a client.
    static func count(_ error: SyncError.Code) {
        let counter = errors.withLock { counters in
            if let counter = counters[error] { return counter }
            let counter = Metrics.Counter(label: "docsync_errors_total", dimensions: [("code", error.rawValue)])
            counters[error] = counter
            return counter
        }
        counter.increment()
    }

    /// Records a collection's figures.
    static func record(_ report: GarbageCollectionReport) {
        guard report.ran else { return }
        gcRuns.increment()
        gcChunks.increment(by: report.chunksRemoved)
        gcBytes.increment(by: Int(report.chunkBytesRemoved))
        gcDuration.recordNanoseconds(Int64(report.seconds * 1e9))
    }
}

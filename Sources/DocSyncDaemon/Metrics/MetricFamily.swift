import Prometheus

/// One family of the daemon's metrics (SPEC §15): its full name and what it means, as the
/// `# HELP` line says. Every family is per folder (label `folder`, the folder's id); a few
/// have one more label from a fixed set of values (`state`, `kind`, `scope`).
///
/// What a scraper may rely on: names and label names never change meaning; no label value
/// is a path or a file name; the number of series of a folder is fixed (it does not grow
/// with its files).
struct MetricFamily: Sendable {
    /// The name as exposed (`docsync_folder_…`).
    let name: String
    let help: String

    init(_ name: String, unit: String = "", help: String) {
        self.name = ["docsync_folder", name, unit].filter { !$0.isEmpty }.joined(separator: "_")
        self.help = help
    }

    /// The descriptor swift-prometheus makes a collector of.
    var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "docsync", subsystem: "folder", metricName: String(name.dropFirst("docsync_folder_".count)),
                             unitName: "", helpText: help)
    }
}

extension MetricFamily {
    // Gauges, from the folder's status at the scrape.
    static let state = MetricFamily("state", help: "1 for the folder's current state (label state), 0 for the others")
    static let items = MetricFamily("items", help: "Items in the folder's index: files, folders and symlinks")
    static let pendingUploads = MetricFamily("pending_uploads", help: "Items waiting to be sent")
    static let pendingUploadBytes = MetricFamily("pending_upload", unit: "bytes", help: "Size of the files waiting to be sent")
    static let pendingDownloads = MetricFamily("pending_downloads", help: "Remote changes fetched and not applied yet")
    static let pendingDownloadBytes = MetricFamily("pending_download", unit: "bytes", help: "Size of the remote changes not applied yet")
    static let conflicts = MetricFamily("conflicts", help: "Items with an unresolved conflict copy beside them")
    static let problems = MetricFamily("problems", help: "What is wrong now, by kind: items with a problem, and the folder's own error as 1")

    // Counters and histograms, from what the folder's engine measures.
    static let sentBytes = MetricFamily("sent_bytes", unit: "total", help: "Chunk bytes uploaded (file content and manifests, as stored)")
    static let receivedBytes = MetricFamily("received_bytes", unit: "total", help: "Chunk bytes downloaded (file content and manifests, as stored)")
    static let scanDuration = MetricFamily("scan_duration", unit: "seconds",
                                           help: "Comparisons of the folder with its index: the whole folder (scope full) or changed paths (scope changes)")
    static let fetchDuration = MetricFamily("fetch_duration", unit: "seconds", help: "Fetches of the remote changes, each fetched and applied to its end")
    static let pushReconnects = MetricFamily("push_reconnects", unit: "total",
                                             help: "Times the push notification stream was lost or could not be opened and was tried again")

    /// Every family, in the order of the list above.
    static let all: [MetricFamily] = [
        state, items, pendingUploads, pendingUploadBytes, pendingDownloads, pendingDownloadBytes, conflicts, problems,
        sentBytes, receivedBytes, scanDuration, fetchDuration, pushReconnects,
    ]

    /// The buckets of the scan durations: from a few changed paths to a 100,000-file folder.
    static let scanBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(10), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(120), .seconds(300), .seconds(600),
    ]

    /// The buckets of the fetch durations: from one request that finds nothing to a first sync.
    static let fetchBuckets: [Duration] = [
        .milliseconds(10), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(120), .seconds(300), .seconds(600),
    ]
}

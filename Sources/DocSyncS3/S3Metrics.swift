import Metrics
import Synchronization

/// Requests this process sends to S3, by HTTP method (`docsync_s3_requests_total`), for
/// `/metrics` and the cost model of the README.
public enum S3Metrics {
    private static let counters = Mutex<[String: Counter]>([:])

    /// The counter of requests with `method` (GET, PUT, POST, DELETE, HEAD).
    public static func requests(_ method: String) -> Counter {
        counters.withLock { counters in
            if let counter = counters[method] { return counter }
            let counter = Counter(label: "docsync_s3_requests_total", dimensions: [("method", method)])
            counters[method] = counter
            return counter
        }
    }
}

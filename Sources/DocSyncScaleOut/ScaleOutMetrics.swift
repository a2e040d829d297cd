import Metrics

/// What the scale-out store asks of its services, for `/metrics` (and the cost model of the
/// README): statements sent to PostgreSQL by this process.
public enum ScaleOutMetrics {
    /// `docsync_postgres_statements_total`: every statement, `BEGIN` and `COMMIT` included.
    public static let statements = Counter(label: "docsync_postgres_statements_total")
}

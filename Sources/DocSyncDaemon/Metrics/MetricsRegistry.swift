import CoreMetrics
import Prometheus

/// The daemon's own Prometheus registry, and swift-metrics handles over its collectors
/// (never the process-wide `MetricsSystem`: tests run many daemons' folders in one process).
///
/// What a caller may rely on: asking twice for the same family and labels gives handles over
/// the same collector, so a counter asked for again (a folder started again) goes on from
/// its value; a counter is never removed. Each collector carries its family's help text.
struct MetricsRegistry: Sendable {
    let registry = PrometheusCollectorRegistry()
    /// The factory swift-metrics handles are made with (and destroyed through).
    let factory: PrometheusMetricsFactory

    init() {
        factory = PrometheusMetricsFactory(registry: registry)
    }

    func counter(_ family: MetricFamily, _ labels: [(String, String)]) -> CoreMetrics.Counter {
        let collector = registry.makeCounter(descriptor: family.descriptor, labels: labels)
        return CoreMetrics.Counter(label: family.name, dimensions: labels, handler: collector, factory: factory)
    }

    func meter(_ family: MetricFamily, _ labels: [(String, String)]) -> CoreMetrics.Meter {
        let collector = registry.makeGauge(descriptor: family.descriptor, labels: labels)
        return CoreMetrics.Meter(label: family.name, dimensions: labels, handler: collector, factory: factory)
    }

    func timer(_ family: MetricFamily, _ labels: [(String, String)], buckets: [Duration]) -> CoreMetrics.Timer {
        let collector = registry.makeDurationHistogram(descriptor: family.descriptor, labels: labels, buckets: buckets)
        return CoreMetrics.Timer(label: family.name, dimensions: labels, handler: collector, factory: factory)
    }

    /// Every collector in Prometheus's text format (version 0.0.4).
    func exposition() -> String { registry.emitToString() }
}

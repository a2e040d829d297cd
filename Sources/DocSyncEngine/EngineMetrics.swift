import Synchronization

/// One thing an engine measured of its own work, for its folder's metrics (SPEC §15).
///
/// What a sink may rely on: byte counts and durations are never negative; a measurement is
/// made once per batch of chunks, per scan and per fetch — never per file.
public enum EngineMeasurement: Sendable, Hashable {
    /// Chunks (file content and manifest nodes, as stored: sealed for an encrypted folder)
    /// the backend took from this engine, in bytes. Chunks the server had already are not
    /// sent, so not counted; records (metadata) are not counted.
    case sent(bytes: Int)
    /// Chunks the backend handed this engine, in bytes (downloads, on-demand reads, merges).
    case received(bytes: Int)
    /// A comparison of the folder with its index that ran to its end, and how long it took.
    case scanned(ScanScope, took: Duration)
    /// A fetch that ran to its end: every remote change after the stored token fetched and
    /// applied, page by page (one request when nothing changed), and how long it took.
    case fetched(took: Duration)
    /// The folder's push notification stream was lost (or could not be opened) and is
    /// tried again. Measured by whoever follows the stream for the engine (the daemon).
    case pushReconnected
}

/// How much of the folder a scan compared.
public enum ScanScope: String, Sendable, Hashable, CaseIterable {
    /// The whole folder (at start, after lost watcher events, on request).
    case full
    /// The paths the watcher reported changed.
    case changes
}

/// Where an engine's measurements go once someone wants them (the daemon's metrics).
public protocol EngineMetricsSink: Sendable {
    /// Called from the engine's tasks, concurrently; must be cheap and must not block.
    func record(_ measurement: EngineMeasurement)
}

/// An engine's measurements (`FolderEngine.metrics`): kept back until a sink is attached,
/// then handed to it as they come.
///
/// What a caller may rely on: before `attach`, sums of bytes and reconnects are kept whole
/// (one measurement each on attach) and the first `pendingDurationLimit` durations of
/// each kind are kept (later ones are dropped); after `attach`, every measurement reaches
/// the sink once. Only the first attach takes effect. Recording costs one uncontended lock.
public final class EngineMetrics: Sendable {
    /// How many durations of each kind are kept while no sink is attached.
    public static let pendingDurationLimit = 256

    private struct Pending {
        var sent = 0
        var received = 0
        var reconnects = 0
        var scans: [EngineMeasurement] = []
        var fetches: [EngineMeasurement] = []

        mutating func add(_ measurement: EngineMeasurement) {
            switch measurement {
            case .sent(let bytes): sent += bytes
            case .received(let bytes): received += bytes
            case .pushReconnected: reconnects += 1
            case .scanned: if scans.count < EngineMetrics.pendingDurationLimit { scans.append(measurement) }
            case .fetched: if fetches.count < EngineMetrics.pendingDurationLimit { fetches.append(measurement) }
            }
        }

        var measurements: [EngineMeasurement] {
            var all = scans + fetches
            if sent > 0 { all.append(.sent(bytes: sent)) }
            if received > 0 { all.append(.received(bytes: received)) }
            all += Array(repeating: .pushReconnected, count: reconnects)
            return all
        }
    }

    private struct State {
        var sink: (any EngineMetricsSink)?
        var pending = Pending()
    }

    private let state = Mutex(State())

    public init() {}

    /// Records `measurement`: to the sink when one is attached, else kept back.
    public func record(_ measurement: EngineMeasurement) {
        let sink = state.withLock { state -> (any EngineMetricsSink)? in
            if let sink = state.sink { return sink }
            state.pending.add(measurement)
            return nil
        }
        sink?.record(measurement)
    }

    /// Attaches the sink `make` returns (called only when none is attached yet) and hands it
    /// what was kept back. Returns false, calling nothing, when a sink was attached before.
    @discardableResult
    public func attach(_ make: () -> any EngineMetricsSink) -> Bool {
        let taken = state.withLock { state -> (any EngineMetricsSink, [EngineMeasurement])? in
            guard state.sink == nil else { return nil }
            let sink = make()
            state.sink = sink
            defer { state.pending = Pending() }
            return (sink, state.pending.measurements)
        }
        guard let (sink, pending) = taken else { return false }
        for measurement in pending { sink.record(measurement) }
        return true
    }

    /// Whether a sink is attached.
    public var isAttached: Bool { state.withLock { $0.sink != nil } }
}

import Foundation
import Logging
import Synchronization

/// The engines' own log lines, kept when `DOCSYNC_SIM_LOG` names a level (`debug`,
/// `trace`, …) so that a replayed seed shows what each engine decided between its turns.
/// Off by default: the lines carry real durations, which differ from run to run. Lines are
/// kept per simulation (`run`), so simulations running side by side keep their own.
struct EngineLogCapture: LogHandler {
    /// Lines not yet taken into a simulation's log, by run.
    static let pending = Mutex<[String: [String]]>([:])
    static let level: Logger.Level? = ProcessInfo.processInfo.environment["DOCSYNC_SIM_LOG"].flatMap(Logger.Level.init(rawValue:))

    let device: String
    /// The simulation the engine belongs to (its state directory).
    let run: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = EngineLogCapture.level ?? .critical

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { _, new in new }.filter { $0.key != "folder" }
        let details = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        Self.pending.withLock { $0[run, default: []].append("  [\(device) \(event.level)] \(event.message) \(details)") }
    }

    /// The lines `run`'s engines logged since the last call.
    static func take(run: String) -> [String] {
        guard level != nil else { return [] }
        return pending.withLock { $0.removeValue(forKey: run) ?? [] }
    }
}

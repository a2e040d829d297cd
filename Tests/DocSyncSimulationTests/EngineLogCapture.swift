import Foundation
import Logging
import Synchronization

/// The engines' own log lines, kept when `DOCSYNC_SIM_LOG` names a level (`debug`,
/// `trace`, …) so that a replayed seed shows what each engine decided between its turns.
/// Off by default: the lines carry real durations, which differ from run to run.
struct EngineLogCapture: LogHandler {
    /// Lines not yet taken into a simulation's log.
    static let pending = Mutex<[String]>([])
    static let level: Logger.Level? = ProcessInfo.processInfo.environment["DOCSYNC_SIM_LOG"].flatMap(Logger.Level.init(rawValue:))

    let device: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = EngineLogCapture.level ?? .critical

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
        let all = metadata.merging(extra ?? [:]) { _, new in new }.filter { $0.key != "folder" }
        let details = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        Self.pending.withLock { $0.append("  [\(device) \(level)] \(message) \(details)") }
    }

    /// The lines logged since the last call.
    static func take() -> [String] {
        guard level != nil else { return [] }
        return pending.withLock { lines in
            defer { lines.removeAll() }
            return lines
        }
    }
}

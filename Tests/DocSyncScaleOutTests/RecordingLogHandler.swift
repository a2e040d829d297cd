import Logging
import Synchronization

/// A `LogHandler` that keeps every message at `warning` and above, for tests that check
/// what a component logs.
struct RecordingLogHandler: LogHandler {
    /// The messages kept, shared by every copy of the handler.
    final class Records: Sendable {
        private let lines = Mutex<[String]>([])

        var all: [String] { lines.withLock { $0 } }

        func append(_ line: String) { lines.withLock { $0.append(line) } }

        /// A logger whose warnings, errors and criticals go to these records.
        func logger(label: String) -> Logger {
            Logger(label: label) { _ in RecordingLogHandler(records: self) }
        }
    }

    let records: Records
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .warning

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.append("\(event.level): \(event.message)")
    }
}

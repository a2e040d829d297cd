import ArgumentParser
import Logging

/// `--log-level LEVEL`, shared by the long-running programs: they log through swift-log to
/// stderr at this level and above.
public struct LoggingOptions: ParsableArguments {
    @Option(name: .customLong("log-level"), help: ArgumentHelp("One of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "level"))
    public var logLevel: String = Logger.Level.info.rawValue

    public init() {}

    public func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level: \(logLevel.debugDescription) is not one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// Sends every logger of the process to stderr at the chosen level. Call once, first.
    public func bootstrap() {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

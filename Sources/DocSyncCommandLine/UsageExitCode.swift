import ArgumentParser
import Foundation

extension AsyncParsableCommand {
    /// Parses `arguments` (default: the command line) and runs the chosen command, as `main()` does, except that a
    /// usage error exits with status 2 (argument-parser's own is 64), the code every docsync
    /// program documents for usage and configuration errors. Help and version print to
    /// stdout and exit 0; other errors print to stderr and exit with their own code.
    public static func mainExitingTwoOnUsageErrors(_ arguments: [String]? = nil) async -> Never {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Foundation.exit(0)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                Foundation.exit(0)
            }
            if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}

import ArgumentParser
import Foundation

/// `docs-status`, the command-line window on `docsyncd` (SPEC §7). This first version has
/// the overview (the default) and `wait`; the full set of calls comes later.
///
/// Exit codes, for scripts:
/// - 0: done (for `wait`: every folder settled).
/// - 1: the call failed: `wait` timed out, the daemon answered with an error, or the
///   connection failed midway. The message is on stderr.
/// - 2: bad usage (unknown option, bad value).
/// - 3: docsyncd is not running: `docs-status: docsyncd is not running (no daemon answers on PATH)`.
@main
struct DocsStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docs-status",
        abstract: "Ask docsyncd what it is doing.",
        discussion: """
            The daemon is found through --socket PATH, then $DOCSYNC_SOCKET, then \
            $XDG_RUNTIME_DIR/docsync/control.sock.

            Exit codes: 0 ok, 1 timeout or failure, 2 usage, 3 docsyncd is not running.
            """,
        subcommands: [OverviewCommand.self, WaitCommand.self],
        defaultSubcommand: OverviewCommand.self
    )

    /// Like `AsyncParsableCommand.main()`, but usage errors exit with 2 (not 64).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
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

/// The exit codes of `docs-status` (see `DocsStatusCommand`).
enum DocsStatusExit {
    static let failure = ExitCode(1)
    static let daemonNotRunning = ExitCode(3)
}

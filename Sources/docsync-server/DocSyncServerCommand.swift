import ArgumentParser
import DocSyncCommandLine
import Foundation

/// `docsync-server`, the sync server other machines' daemons talk to (SPEC §1, §8).
///
/// Exit codes: 0 stopped by SIGTERM/SIGINT (or a user command succeeded); 1 failed while
/// running; 2 bad usage or a configuration error, printed to stderr as one line.
@main
struct DocSyncServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docsync-server",
        abstract: "Serve docsync's records and chunks over HTTP, one private store per user.",
        discussion: """
            Start it with `docsync-server serve --data DIR`; create an account with \
            `docsync-server user add NAME --data DIR`, which prints the first device token. \
            `docsync-server user quota NAME 10GB` limits what a user stores; `docsync-server gc` \
            collects garbage now (the server also does on its own, every gc_interval).

            Exit codes: 0 stopped by SIGTERM/SIGINT, 1 failed while running, 2 usage or configuration error.
            """,
        subcommands: [ServeCommand.self, UserCommand.self, CollectCommand.self, MigrateCommand.self],
        defaultSubcommand: ServeCommand.self
    )

    /// Usage errors exit with 2 (not argument-parser's 64).
    static func main() async { await mainExitingTwoOnUsageErrors() }
}

/// Writes one line to stderr, prefixed with the program's name.
func complain(_ message: String) {
    FileHandle.standardError.write(Data("docsync-server: \(message)\n".utf8))
}

/// Writes one line to stdout and flushes it, so a process reading it sees it at once.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

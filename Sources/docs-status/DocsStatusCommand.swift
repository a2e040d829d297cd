import ArgumentParser
import DocSyncCommandLine
import Foundation

/// `docs-status`, the command-line window on `docsyncd` (SPEC §7).
///
/// Exit codes, for scripts (`DocsStatusExit`):
/// - 0: done (for `wait` and `sync`: every folder settled; for an action: done for every item).
/// - 1: the call failed: the daemon answered with an error, `wait`/`sync` timed out, an
///   action was refused or failed for at least one item, or the connection failed midway.
///   The message is on stderr (every outcome of an action is still printed).
/// - 2: bad usage: unknown option, bad value, missing argument, or a predicate the daemon
///   cannot parse (its message gives the position).
/// - 3: docsyncd is not running: `docs-status: docsyncd is not running (no daemon answers on PATH)`.
/// - 4: not found: a path outside every synced folder, or no such item.
/// - 5: held: `wait` or `sync` cannot settle because a folder, or some of its deletions, are
///   held for a person to decide (SPEC §4a; see `docs-status deletions`), or this device of an
///   encrypted account awaits approval or cannot decrypt (SPEC §13). Returned at once.
/// - 6: no such key: `kv get` of a key the store does not hold (`KeyValueExit`).
@main
struct DocsStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docs-status",
        abstract: "Ask docsyncd what it is doing.",
        discussion: """
            The daemon is found through --socket PATH, then $DOCSYNC_SOCKET, then \
            $XDG_RUNTIME_DIR/docsync/control.sock. Paths are taken relative to the current \
            directory. --json prints one stable JSON schema per call (see the README).

            \(DocsStatusExit.help)
            """,
        subcommands: [
            OverviewCommand.self, ListCommand.self, QueryCommand.self, WaitCommand.self,
            ConflictsCommand.self, ErrorsCommand.self, DownloadCommand.self, EvictCommand.self, PinCommand.self, UnpinCommand.self,
            SyncCommand.self, VersionsCommand.self, RestoreCommand.self, DeletionsCommand.self,
            DeletedCommand.self, RecoverCommand.self, ResolveCommand.self, ShareCommand.self, SharesCommand.self,
            DeclineCommand.self, AcceptCommand.self, LeaveCommand.self, KeyValueCommand.self,
            EncryptionCommand.self, DevicesCommand.self, EventsCommand.self, PauseCommand.self, ResumeCommand.self, LimitCommand.self, WebCommand.self,
        ],
        defaultSubcommand: OverviewCommand.self
    )

    /// Usage errors exit with 2 (not argument-parser's 64). The options every call shares
    /// may come before the call's name (`docs-status --json ls`).
    static func main() async {
        let placement = SharedOptionPlacement(
            calls: Set(configuration.subcommands.compactMap { $0.configuration.commandName }),
            valued: ["--socket"], flags: ["--json"])
        var arguments = placement.reordered(Array(CommandLine.arguments.dropFirst()))
        // `kv` groups calls of its own: shared options go after the call under it too.
        if arguments.first == KeyValueCommand.configuration.commandName {
            let inner = SharedOptionPlacement(calls: KeyValueCommand.callNames, valued: ["--socket"], flags: ["--json"])
            arguments = [arguments[0]] + inner.reordered(Array(arguments.dropFirst()))
        }
        await mainExitingTwoOnUsageErrors(arguments)
    }
}

/// The exit codes of `docs-status` (see `DocsStatusCommand`).
enum DocsStatusExit {
    static let failure = ExitCode(1)
    static let usage = ExitCode(2)
    static let daemonNotRunning = ExitCode(3)
    static let notFound = ExitCode(4)
    static let held = ExitCode(5)

    /// The exit codes as every command's help states them.
    static let help = """
        Exit codes: 0 ok; 1 failure (the daemon answered an error, a timeout, an action \
        refused or failed for any item); 2 usage (bad option, missing argument, a predicate \
        that does not parse); 3 docsyncd is not running; 4 not found (a path outside every \
        synced folder, or no such item); 5 held (wait or sync: a folder or its deletions wait \
        for you, see docs-status deletions; or this device or an encrypted folder awaits \
        approval or cannot be decrypted, see docs-status encryption); 6 no such key (kv get).
        """
}

import ArgumentParser
import DocSyncControl
import DocSyncCore

/// `docs-status sync`: fetch and send now, and wait for the round to finish.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Fetch and send now; returns when the round is done.",
        discussion: """
            Exits 0 once the round is done, 1 when --timeout passes first. --json prints the \
            daemon's status object after the round.

            \(DocsStatusExit.help)
            """
    )

    @Option(help: ArgumentHelp("Give up after this many seconds.", valueName: "seconds"))
    var timeout: Double = 300

    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        try validateTimeout(timeout)
    }

    func run() async throws {
        let status = try await options.answer(.sync(timeoutSeconds: timeout), \.daemonStatus)
        if options.json {
            Output.json(status)
            return
        }
        let uploads = status.folders.reduce(0) { $0 + $1.pendingUploads }
        let downloads = status.folders.reduce(0) { $0 + $1.pendingDownloads }
        let pending = uploads + downloads == 0
            ? "nothing pending"
            : "still pending: \(Format.count(uploads, "upload")), \(Format.count(downloads, "download"))"
        Output.line("synced: \(Format.count(status.folders.count, "folder")), \(pending)")
        let problems = status.folders.reduce(0) { $0 + $1.problems.count }
        let conflicts = status.folders.reduce(0) { $0 + $1.conflicts }
        if problems + conflicts > 0 {
            Output.line("\(Format.count(conflicts, "conflict")), \(Format.count(problems, "problem")): see docs-status conflicts / errors")
        }
    }
}

import ArgumentParser
import DocSyncControl
import DocSyncCore

/// `docs-status wait`: returns once every folder is idle with nothing pending.
struct WaitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until every folder is idle with nothing pending.",
        discussion: """
            Exits 0 once settled, 1 when --timeout passes first. Items kept on this device by \
            design (a read-only share's changes, files over max_file_size) are not pending: \
            they are named on stderr. --json prints the daemon's \
            status object at that moment. On a terminal, a progress bar on stderr shows the \
            pending uploads and downloads going down meanwhile.

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
        let status = try await ProgressPoller.run(json: options.json, sample: CallProgress.wait(options.client)) {
            try await options.answer(.wait(timeoutSeconds: timeout), \.settledStatus)
        }
        // Settled with them: items kept on this device by design are named, not pending.
        for folder in status.folders {
            for problem in folder.problems where problem.isKeptHereByDesign {
                Output.error("kept on this device: \(folder.path)/\(problem.path) (\(problem.message))")
            }
        }
        if options.json {
            Output.json(status)
        } else {
            Output.line("settled: \(Format.count(status.folders.count, "folder")), nothing pending")
        }
    }
}

/// A `--timeout` is a finite number of seconds, 0 or more.
func validateTimeout(_ timeout: Double) throws {
    guard timeout.isFinite, timeout >= 0 else {
        throw ValidationError("--timeout must be a number of seconds, 0 or more")
    }
}

import ArgumentParser
import DocSyncControl

/// `docs-status wait`: returns once every folder is idle with nothing pending.
struct WaitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until every folder is idle with nothing pending.",
        discussion: "Exits 0 once settled, 1 when --timeout passes first."
    )

    @Option(help: ArgumentHelp("Give up after this many seconds.", valueName: "seconds"))
    var timeout: Double = 300

    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        guard timeout.isFinite, timeout >= 0 else {
            throw ValidationError("--timeout must be a number of seconds, 0 or more")
        }
    }

    func run() async throws {
        switch try await options.call(.wait(timeoutSeconds: timeout)) {
        case .settled(let status):
            if options.json {
                Output.json(status)
            } else {
                Output.line("settled: \(status.folders.count == 1 ? "1 folder" : "\(status.folders.count) folders"), nothing pending")
            }
        case .failure(let code, let message):
            try options.fail(code: code, message: message)
        case let other:
            try options.unexpected(other)
        }
    }
}

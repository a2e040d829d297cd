import ArgumentParser
import DocSyncControl

/// `docs-status` (or `docs-status status`): the overview of SPEC §7.
struct OverviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the account, each folder's state, pending transfers, conflicts and problems (the default)."
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        switch try await options.call(.status) {
        case .status(let status):
            if options.json {
                Output.json(status)
            } else {
                Output.line(StatusReport.render(status))
            }
        case .failure(let code, let message):
            try options.fail(code: code, message: message)
        case let other:
            try options.unexpected(other)
        }
    }
}

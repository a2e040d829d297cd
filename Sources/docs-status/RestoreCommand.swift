import ArgumentParser
import DocSyncControl

/// `docs-status restore PATH [--version ID]`: bring a kept version back.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Bring back a kept version of an item (the newest unless --version) as a new change.",
        discussion: """
            The version IDs are those of `docs-status versions PATH`. Prints the outcome \
            (--json: an array of outcome objects).

            \(DocsStatusExit.help)
            """
    )

    @Argument(help: ArgumentHelp("The item's path inside a synced folder (it may have been deleted).", valueName: "path"))
    var path: String

    @Option(help: ArgumentHelp("The version to bring back (default: the newest).", valueName: "id"))
    var version: Int64?

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let request = ControlRequest.restore(path: PathArguments.absolute(path), version: version)
        try ActionReport.finish(try await options.answer(request, \.outcomeList), options: options)
    }
}

import ArgumentParser
import DocSyncControl

/// `docs-status ls [PATH…]`: per-item status.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "Show each item's sync status: a directory's children, a file itself.",
        discussion: """
            With no PATH, the top level of every synced folder. Paths are relative to the \
            current directory. --json prints an array of item objects.

            \(DocsStatusExit.help)
            """
    )

    @Argument(help: ArgumentHelp("Files or directories inside synced folders.", valueName: "path"))
    var paths: [String] = []

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let items = try await options.answer(.list(paths: PathArguments.absolute(paths)), \.itemList)
        if options.json {
            Output.json(items)
        } else {
            Output.lines(ItemReport.render(items, empty: "no items"))
        }
    }
}

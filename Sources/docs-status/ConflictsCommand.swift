import ArgumentParser
import DocSyncControl

/// `docs-status conflicts`: items with a conflict copy beside them, and the copies.
struct ConflictsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "Show the items with an unresolved conflict copy beside them, and the copies.",
        discussion: """
            Keep the right content, delete the copy, and the conflict is resolved. --json \
            prints an array of item objects.

            \(DocsStatusExit.help)
            """
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let items = try await options.answer(.conflicts, \.itemList)
        if options.json {
            Output.json(items)
        } else {
            Output.lines(ItemReport.render(items, empty: "no conflicts"))
        }
    }
}

import ArgumentParser
import DocSyncControl

/// `docs-status errors`: items and folders with a problem that needs a person.
struct ErrorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "errors",
        abstract: "Show the items and folders with a problem that needs a person.",
        discussion: "--json prints an array of problem objects.\n\n\(DocsStatusExit.help)"
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let problems = try await options.answer(.errors, \.problemList)
        if options.json {
            Output.json(problems)
        } else if problems.isEmpty {
            Output.line("no problems")
        } else {
            let rows = problems.map { [Cell(Format.join($0.folder, $0.path)), Cell($0.message, color: .red)] }
            Output.lines(Table.render(header: ["PATH", "PROBLEM"], rows: rows))
        }
    }
}

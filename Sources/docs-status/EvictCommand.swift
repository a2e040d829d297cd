import ArgumentParser
import DocSyncControl

/// `docs-status evict`: turn uploaded files back into placeholders.
struct EvictCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evict",
        abstract: "Turn uploaded files back into on-demand placeholders, by path or --where PREDICATE.",
        discussion: """
            A file not yet uploaded is refused (nothing is ever lost). Prints one outcome per \
            item (--json: an array of outcome objects).

            \(DocsStatusExit.help)
            """
    )

    @OptionGroup var targets: ActionTargets
    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let request = ControlRequest.evict(paths: PathArguments.absolute(targets.paths), predicate: targets.predicate)
        try ActionReport.finish(try await options.answer(request, \.outcomeList), options: options)
    }
}

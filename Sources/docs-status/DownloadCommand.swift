import ArgumentParser
import DocSyncControl

/// `docs-status download`: fetch on-demand placeholders.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download on-demand files (placeholders) by path or --where PREDICATE.",
        discussion: """
            A directory downloads everything under it. Returns when every file is downloaded \
            or has failed; prints one outcome per item (--json: an array of outcome objects).

            \(DocsStatusExit.help)
            """
    )

    @OptionGroup var targets: ActionTargets
    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let request = ControlRequest.download(paths: PathArguments.absolute(targets.paths), predicate: targets.predicate)
        try ActionReport.finish(try await options.answer(request, \.outcomeList), options: options)
    }
}

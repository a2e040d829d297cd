import ArgumentParser
import DocSyncControl

/// `docs-status download`: fetch on-demand placeholders.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download on-demand files (placeholders) by path or --where PREDICATE.",
        discussion: """
            A directory downloads everything under it. Returns when every file is downloaded \
            or has failed; prints one outcome per item (--json: an array of outcome objects). \
            On a terminal, stderr shows the progress meanwhile: a bar of the files and bytes \
            downloaded so far (for --where and named files; for a named directory, the time).

            \(DocsStatusExit.help)
            """
    )

    @OptionGroup var targets: ActionTargets
    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let paths = PathArguments.absolute(targets.paths)
        let request = ControlRequest.download(paths: paths, predicate: targets.predicate)
        let progress = CallProgress.draws(json: options.json)
            ? await CallProgress.download(options.client, paths: paths, predicate: targets.predicate) : CallProgress.activity("downloading")
        let outcomes = try await ProgressPoller.run(json: options.json, sample: progress) {
            try await options.answer(request, \.outcomeList)
        }
        try ActionReport.finish(outcomes, options: options)
    }
}

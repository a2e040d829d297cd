import ArgumentParser
import DocSyncControl

/// `docs-status pin`: keep files of an on-demand folder local.
struct PinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Keep on-demand files local, by path or --where PREDICATE: downloaded now, never evicted by cache_max_size.",
        discussion: """
            A folder pins every file beneath it now. `download` pins too; `unpin` and `evict` \
            undo it. Prints one outcome per file (--json: an array of outcome objects).

            \(DocsStatusExit.help)
            """
    )

    @OptionGroup var targets: ActionTargets
    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let request = ControlRequest.pin(paths: PathArguments.absolute(targets.paths), predicate: targets.predicate)
        try ActionReport.finish(try await options.answer(request, \.outcomeList), options: options)
    }
}

/// `docs-status unpin`: let the cache limit evict files again.
struct UnpinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpin",
        abstract: "No longer keep on-demand files local, by path or --where PREDICATE: cache_max_size may evict them.",
        discussion: """
            Nothing is evicted at once; the files stay until the cache needs their space. \
            Prints one outcome per file (--json: an array of outcome objects).

            \(DocsStatusExit.help)
            """
    )

    @OptionGroup var targets: ActionTargets
    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let request = ControlRequest.unpin(paths: PathArguments.absolute(targets.paths), predicate: targets.predicate)
        try ActionReport.finish(try await options.answer(request, \.outcomeList), options: options)
    }
}

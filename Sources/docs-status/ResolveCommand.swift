import ArgumentParser
import DocSyncControl
import DocSyncCore

/// `docs-status resolve PATH… | --all [--where PREDICATE] --keep local|remote|both`: settle
/// conflicts (SPEC §4).
struct ResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Settle conflicts: keep this device's version, the other device's, or both.",
        discussion: """
            A PATH names the item in conflict or one of its conflict copies; --all takes \
            every conflict of every folder, --where only those (items or copies) a predicate \
            matches (see docs-status query). A conflict copy, <name> (conflict DEVICE TIME), \
            holds the content of the device its name carries: this device's side when that is \
            this device (the item then holds the other side), the other side otherwise (the \
            item then holds this device's). --keep local and --keep remote put the chosen \
            side at the item's path and the other in the version store (docs-status versions \
            PATH lists it), and remove the copy; --keep both renames each copy to an \
            ordinary name (<name> 2, <name> 3, …). Either way the change reaches every \
            device. Named by the item, every copy beside it is settled. Prints one outcome \
            per conflict (--json: an array of outcome objects).

            \(DocsStatusExit.help)
            """
    )

    @Argument(help: ArgumentHelp("Items in conflict, or their conflict copies, inside synced folders.", valueName: "path"))
    var paths: [String] = []

    @Flag(help: "Every conflict of every folder (narrowed by --where).")
    var all = false

    @Option(name: .customLong("where"), help: ArgumentHelp("Only the conflicts (items or copies) matching this predicate.", valueName: "predicate"))
    var predicate: String?

    @Option(help: ArgumentHelp("Which version to keep: local (this device's), remote (the other device's) or both.", valueName: "local|remote|both"))
    var keep: ConflictKeep

    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        if paths.isEmpty, !all, predicate == nil { throw ValidationError("give at least one PATH, or --all") }
        if !paths.isEmpty, all { throw ValidationError("give PATHs or --all, not both") }
    }

    func run() async throws {
        let request = ControlRequest.resolve(paths: PathArguments.absolute(paths), all: all || predicate != nil, predicate: predicate, keep: keep)
        // Each conflict waits for its folder's loop, which may be busy with a long transfer:
        // the call's default timeout is an hour (`ControlClient.defaultTimeout`).
        try ActionReport.finish(try await options.answer(request, \.outcomeList), options: options)
    }
}

extension ConflictKeep: ExpressibleByArgument {}

import ArgumentParser
import DocSyncControl
import DocSyncCore

/// `docs-status recover PATH… | --where P | --since T`: brings deleted items back on every
/// device (SPEC §4a).
struct RecoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Bring deleted items back from Recently Deleted, on every device.",
        discussion: """
            Works from any device, whichever deleted the items, as long as the backend keeps \
            them (see docs-status deleted). An item comes back at its last path, under its \
            own identity, when the path is free, and under a conflict name otherwise; a \
            folder comes back with what was deleted with it, and a file with the deleted \
            folders it was in. Prints one outcome per item. A PATH that matches nothing in \
            Recently Deleted (purged, past its retention, or never deleted) is no such item: \
            nothing is recovered, and the call exits 4 saying why.

            \(DocsStatusExit.help)
            """
    )

    @OptionGroup var selecting: DeletedSelectionOptions
    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        if selecting.paths.isEmpty, selecting.predicate == nil, selecting.since == nil {
            throw ValidationError("give a PATH, --where PREDICATE or --since TIME")
        }
    }

    func run() async throws {
        let outcomes = try await ProgressPoller.run(json: options.json, sample: CallProgress.action(FolderActivity.recovering, options.client, words: FolderActivity.recovering)) {
            try await options.answer(.recover(selection: selecting.selection), \.outcomeList)
        }
        try ActionReport.finish(outcomes, options: options)
    }
}

import ArgumentParser
import DocSyncControl
import DocSyncCore

/// `docs-status deleted [PATH…] [--where P] [--since T] [--purge]`: the backend's Recently
/// Deleted (SPEC §4a), and emptying it early.
struct DeletedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deleted",
        abstract: "List what the backend keeps of deleted items (Recently Deleted); --purge empties it early.",
        discussion: """
            Deleted items are kept on the backend, with their content, for its \
            deleted_retention (30 days by default), whichever device deleted them; \
            `docs-status recover` brings them back on every device. Lists path, deletion \
            time, device and size, newest first (--json: an array of objects). --purge \
            removes the selected items for good (their storage is reclaimed); with no \
            PATH, --where or --since it needs --all.

            \(DocsStatusExit.help)
            """
    )

    @OptionGroup var selecting: DeletedSelectionOptions

    @Flag(help: "Remove the selected items from Recently Deleted for good.")
    var purge = false

    @Flag(help: "With --purge and nothing else selected: every item of every folder.")
    var all = false

    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        if purge, !all, selecting.paths.isEmpty, selecting.predicate == nil, selecting.since == nil {
            throw ValidationError("--purge needs a PATH, --where, --since, or --all for everything")
        }
        if all, !purge { throw ValidationError("--all goes with --purge") }
    }

    func run() async throws {
        if purge {
            let outcomes = try await options.answer(.deleted(selection: selecting.selection, purge: true), \.outcomeList)
            try ActionReport.finish(outcomes, options: options)
            return
        }
        let entries = try await options.answer(.deleted(selection: selecting.selection, purge: false), \.deletedEntries)
        if options.json {
            Output.json(entries)
        } else if entries.isEmpty {
            Output.line("nothing in Recently Deleted")
        } else {
            let rows = entries.map { entry -> [Cell] in
                [
                    Cell(Format.minute(entry.deletedAt)), Cell(entry.deletedBy.isEmpty ? "?" : entry.deletedBy),
                    Cell(entry.kind == RecordType.folder.rawValue ? "" : Format.bytes(entry.size)),
                    Cell(Format.join(entry.folder, entry.path) + (entry.kind == RecordType.folder.rawValue ? "/" : "")),
                ]
            }
            Output.lines(Table.render(header: ["DELETED", "BY", "SIZE", "PATH"], rows: rows, rightAligned: [2]))
        }
    }
}

import ArgumentParser
import DocSyncControl
import DocSyncCore

/// `docs-status deletions [FOLDER] [--confirm | --restore]`: what held folders and the
/// mass-delete brake hold back (SPEC §4a), and the person's choice over it.
struct DeletionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deletions",
        abstract: "Show what a held folder or the mass-delete brake holds back; --confirm or --restore decides.",
        discussion: """
            A folder is held when its root is missing, not a directory, or not the folder \
            that was synced (its .docsync-root marker is gone); nothing is sent or written \
            until it is back — it resumes by itself — or you choose. The brake holds local \
            deletions that reach delete_brake_percent of a folder's items and delete_brake_min \
            items (or 10,000); everything else keeps syncing.

            --confirm sends the held deletions to the other devices (a held folder whose \
            root is there gets its marker back). --restore brings the held items back from \
            the backend (placeholders in on-demand folders); it refuses to write while the \
            root is missing. Both print one outcome per item. Without --json, at most the \
            first 50 held items of each folder are listed (--json lists up to 10,000).

            \(DocsStatusExit.help)
            """
    )

    @Argument(help: ArgumentHelp("A synced folder (its path or its id); default: every folder.", valueName: "folder"))
    var folder: String?

    @Flag(help: "Send the held deletions.")
    var confirm = false

    @Flag(help: "Bring the held items back from the backend.")
    var restore = false

    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        if confirm && restore { throw ValidationError("choose one of --confirm and --restore") }
    }

    func run() async throws {
        let target = folder.map { PathArguments.absolute($0) }
        if confirm || restore {
            let request = ControlRequest.deletions(folder: target, choice: confirm ? .confirm : .restore)
            let words = confirm ? "sending the held deletions" : "bringing the held items back"
            let sample = restore ? CallProgress.action(FolderActivity.restoring, options.client, words: words) : CallProgress.activity(words)
            let outcomes = try await ProgressPoller.run(json: options.json, sample: sample) {
                try await options.answer(request, \.outcomeList)
            }
            if outcomes.isEmpty, !options.json {
                Output.line("nothing is held")
                return
            }
            try ActionReport.finish(outcomes, options: options)
            return
        }
        let folders = try await options.answer(.deletions(folder: target, choice: nil), \.heldFolders)
        if options.json {
            Output.json(folders)
            return
        }
        Output.lines(Self.render(folders))
    }

    static func render(_ folders: [HeldFolder]) -> [String] {
        var lines: [String] = []
        for folder in folders {
            if !lines.isEmpty { lines.append("") }
            guard let held = folder.held else {
                lines.append("\(folder.folder): nothing held")
                continue
            }
            let what = held.isFolderHeld ? "folder held (\(held.reason))" : "deletions held by the brake"
            lines.append(Color.yellow.paint("\(folder.folder): \(what) since \(Format.dateTime(held.since))"))
            lines.append(held.message)
            let shown = folder.items.prefix(50)
            let rows = shown.map { [Cell($0.kind), Cell($0.kind == RecordType.folder.rawValue ? "" : Format.bytes($0.size)), Cell(Format.join(folder.path, $0.path))] }
            lines += Table.render(header: ["KIND", "SIZE", "PATH"], rows: rows, rightAligned: [1])
            if folder.total > shown.count { lines.append("… and \(folder.total - shown.count) more (\(folder.total) in all; --json lists them)") }
        }
        return lines.isEmpty ? ["no folders"] : lines
    }
}

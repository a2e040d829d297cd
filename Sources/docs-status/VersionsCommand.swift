import ArgumentParser
import DocSyncControl

/// `docs-status versions PATH`: what the version store keeps of one item.
struct VersionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "versions",
        abstract: "List the kept versions of an item, newest first.",
        discussion: """
            Each version's ID is what `docs-status restore PATH --version ID` takes. --json \
            prints an array of version objects.

            \(DocsStatusExit.help)
            """
    )

    @Argument(help: ArgumentHelp("A file inside a synced folder (it may have been deleted).", valueName: "path"))
    var path: String

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let absolute = PathArguments.absolute(path)
        let versions = try await options.answer(.versions(path: absolute), \.versionList)
        if options.json {
            Output.json(versions)
        } else if versions.isEmpty {
            Output.line("no versions kept of \(absolute)")
        } else {
            let rows = versions.map { version -> [Cell] in
                [
                    Cell("\(version.id)"), Cell(Format.minute(version.savedAt)), Cell(version.reason),
                    Cell(version.device), Cell(Format.bytes(version.size)), Cell(Format.join(version.folder, version.path)),
                ]
            }
            Output.lines(Table.render(header: ["ID", "SAVED", "REASON", "DEVICE", "SIZE", "PATH"], rows: rows, rightAligned: [0, 4]))
        }
    }
}

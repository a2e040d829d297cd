import ArgumentParser
import DocSyncControl
import DocSyncCore

/// `docs-status query 'PREDICATE' [--watch]`: a metadata query (SPEC §6), once or live.
struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Show the items matching a predicate; with --watch, keep showing what changes.",
        discussion: """
            Attributes: name, path, size, modified, kind, downloadingStatus, isDownloading, \
            percentDownloaded, isUploading, isUploaded, percentUploaded, downloadingError, \
            uploadingError, hasUnresolvedConflicts. Operators: == != < <= > >= BEGINSWITH \
            ENDSWITH CONTAINS LIKE MATCHES IN BETWEEN, AND OR NOT, parentheses, [c] [d] [cd]. \
            LIKE is a glob: * any run, ? one character. Example: \
            docs-status query "name LIKE[c] '*.pdf' AND size > 1000000"

            --watch prints the result, then one line per change until Ctrl-C (exit 0): \
            "+ folder/path" added, "~ folder/path (what changed)" changed, "- folder/path" \
            removed. With --json: an array of item objects; with --watch --json, one object \
            per line: {"event": "initial"|"added"|"changed"|"removed", "item": {…}}.

            \(DocsStatusExit.help)
            """
    )

    @Argument(help: ArgumentHelp("The predicate, quoted for the shell.", valueName: "predicate"))
    var predicate: String

    @Flag(help: "Keep running and print each change to the result (Ctrl-C ends it).")
    var watch = false

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        if watch {
            try await LiveQuery(predicate: predicate, options: options).run()
            return
        }
        let items = try await options.answer(.query(predicate: predicate, watch: false), \.itemList)
        if options.json {
            Output.json(items)
        } else {
            Output.lines(ItemReport.render(items, empty: "no matches"))
        }
    }
}

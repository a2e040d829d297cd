import ArgumentParser
import DocSyncControl
import DocSyncCore

/// `docs-status shares`: the shares offered to this account (SPEC §11).
struct SharesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shares",
        abstract: "List the folders other accounts share with this one, and invitations.",
        discussion: """
            Each share is named OWNER/FOLDER-ID, the name docs-status accept and decline \
            take, with its permission and status (invited, accepted, declined, removed, \
            left, stopped). Sharing needs a docsync-server backend.

            \(DocsStatusExit.help)
            """
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let entries = try await options.answer(.shares, \.shareEntries)
        if options.json {
            Output.json(["shares": entries])
            return
        }
        Output.lines(Self.render(entries))
    }

    static func render(_ entries: [ShareEntry]) -> [String] {
        guard !entries.isEmpty else { return ["nothing is shared with this account"] }
        let rows = entries.map { [Cell($0.share.description), Cell($0.permission.argument), Cell($0.status.rawValue), Cell(Format.dateTime($0.changed.date))] }
        return Table.render(header: ["SHARE", "PERMISSION", "STATUS", "SINCE"], rows: rows)
    }
}

/// `docs-status decline SHARE`: declines an invitation (SPEC §11).
struct DeclineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decline",
        abstract: "Decline an invitation to a shared folder (OWNER/FOLDER-ID, as docs-status shares lists it).",
        discussion: """
            The owner sees the invitation declined; they may invite the account again. A \
            share already accepted is left with docs-status leave instead.

            \(DocsStatusExit.help)
            """
    )

    @Argument(help: ArgumentHelp("The share, as docs-status shares lists it.", valueName: "owner/folder-id"))
    var share: String

    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        do { _ = try ShareName(parsing: share) } catch { throw ValidationError(error.message) }
    }

    func run() async throws {
        let entries = try await options.answer(.declineShare(share: try ShareName(parsing: share)), \.shareEntries)
        if options.json {
            Output.json(["shares": entries])
            return
        }
        Output.lines(entries.map { "\($0.share): \($0.status.rawValue)" })
    }
}

import ArgumentParser
import DocSyncControl
import DocSyncCore
import Foundation

/// `docs-status shares`: the shares offered to this account (SPEC §11).
struct SharesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shares",
        abstract: "List the folders other accounts share with this one, and invitations.",
        discussion: """
            Each share is named OWNER/FOLDER-ID, the name docs-status accept and decline \
            take, with its permission and status (invited, accepted, declined, removed, \
            left, stopped). For an encrypted folder it shows the fingerprint to give its \
            owner, who confirms it with docs-status share FOLDER --with YOU --fingerprint \
            CODE; until then the folder waits for its keys. Sharing needs a docsync-server backend.

            \(DocsStatusExit.help)
            """
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        ShareEntries.print(try await options.answer(.shares, \.shareEntries), options: options, as: Self.render)
    }

    static func render(_ entries: [ShareEntry]) -> [String] {
        guard !entries.isEmpty else { return ["nothing is shared with this account"] }
        let encrypted = entries.contains { $0.keys != nil }
        let rows = entries.map {
            [Cell($0.share.description), Cell($0.permission.argument), Cell($0.status.rawValue), Cell(Format.dateTime($0.changed.date))]
                + (encrypted ? [Cell($0.keys ?? "")] : [])
        }
        return Table.render(header: ["SHARE", "PERMISSION", "STATUS", "SINCE"] + (encrypted ? ["KEYS"] : []), rows: rows)
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
        ShareEntries.print(entries, options: options) { $0.map { "\($0.share): \($0.status.rawValue)" } }
    }
}

/// `docs-status leave FOLDER`: ends this account's part in a share (SPEC §11).
struct LeaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leave",
        abstract: "Leave a shared folder on every device of this account; its files stay here, no longer synced.",
        discussion: """
            Nothing is deleted, for anyone: the owner's folder is untouched, and this \
            device's copy stays as it is, no longer synced (state "no longer shared"). The \
            account's other devices detach it too. FOLDER is a folder attached to a share \
            (its path or its id, OWNER/FOLDER-ID).

            \(DocsStatusExit.help)
            """
    )

    @Argument(help: ArgumentHelp("A folder attached to a share (its path or OWNER/FOLDER-ID).", valueName: "folder"))
    var folder: String

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        // OWNER/FOLDER-ID names the folder by its share, unless a path of that name is there.
        let isShareName = (try? ShareName(parsing: folder)) != nil && !FileManager.default.fileExists(atPath: folder)
        let target = isShareName ? folder : PathArguments.absolute(folder)
        let entries = try await options.answer(.leaveShare(folder: target), \.shareEntries)
        ShareEntries.print(entries, options: options) { $0.map { "\($0.share): \($0.status.rawValue); the files stay on this device, no longer synced" } }
    }
}

/// `docs-status accept SHARE --folder PATH`: accepts a share and attaches it here (SPEC §11).
struct AcceptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept",
        abstract: "Accept a shared folder (OWNER/FOLDER-ID, as docs-status shares lists it) and sync it into PATH on this device.",
        discussion: """
            Acceptance is the account's: each of its devices attaches the share with its own \
            accept (or share = "OWNER/ID" in a [[folders]] table). PATH must be absent or \
            empty, and not inside or around a synced folder (exit 2 otherwise: merging a \
            private folder in would upload its files into the owner's). The folder starts \
            syncing at once and stays attached when docsyncd starts again.

            \(DocsStatusExit.help)
            """
    )

    @Argument(help: ArgumentHelp("The share, as docs-status shares lists it.", valueName: "owner/folder-id"))
    var share: String

    @Option(help: ArgumentHelp("Where the shared folder goes on this device: absent or empty.", valueName: "path"))
    var folder: String

    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        do { _ = try ShareName(parsing: share) } catch { throw ValidationError(error.message) }
    }

    func run() async throws {
        let path = PathArguments.absolute(folder)
        let entries = try await options.answer(.acceptShare(share: try ShareName(parsing: share), folder: path), \.shareEntries)
        ShareEntries.print(entries, options: options) { $0.map { "\($0.share): \($0.status.rawValue), \($0.permission.argument); attached at \(path)" } }
    }
}

/// How the share calls print the account's entries: `{"shares": […]}` with `--json`, else
/// the lines `render` makes of them.
enum ShareEntries {
    static func print(_ entries: [ShareEntry], options: ConnectionOptions, as render: ([ShareEntry]) -> [String]) {
        if options.json {
            Output.json(["shares": entries])
        } else {
            Output.lines(render(entries))
        }
    }
}

import ArgumentParser
import DocSyncControl
import DocSyncCore

/// `docs-status share FOLDER [--with NAME… [--read-only] [--fingerprint CODE]] [--remove NAME…]
/// [--permission NAME read-only|read-write] [--stop]`: the owner's view and changes of a
/// folder's share (SPEC §11).
struct ShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Show or change who shares a folder: invite, remove, set a permission, stop.",
        discussion: """
            Without options, lists the folder's participants with their permission and \
            status (invited, accepted, declined, removed, left, stopped). --with invites \
            accounts of the same docsync-server (read-write, or read-only with --read-only); \
            each accepts with docs-status accept OWNER/FOLDER-ID on their side. --remove ends \
            a participant's part, --permission changes one, --stop ends the share for \
            everyone. The folder stays yours: its storage counts against your quota, and \
            nothing a participant does deletes your data. Sharing needs a docsync-server backend.

            An encrypted folder's keys reach a participant only once you confirm their \
            account: they read a code in docs-status shares, you compare it and run \
            docs-status share FOLDER --with NAME --fingerprint CODE (before or after they \
            accept). A code that differs means the keys were changed on the way: nothing is \
            shared. Removing a participant starts a new key epoch: nothing written after it \
            is readable with what they kept.

            \(DocsStatusExit.help)
            """
    )

    @Argument(help: ArgumentHelp("A synced folder you own (its path or its id).", valueName: "folder"))
    var folder: String

    @Option(name: .customLong("with"), parsing: .upToNextOption, help: ArgumentHelp("Invite these accounts.", valueName: "name"))
    var invite: [String] = []

    @Flag(help: "With --with: the invited may read but not change the folder.")
    var readOnly = false

    @Option(help: ArgumentHelp("With --with NAME, for an encrypted folder: the code NAME's docs-status shares shows.", valueName: "code"))
    var fingerprint: String?

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Remove these participants.", valueName: "name"))
    var remove: [String] = []

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Give a participant a permission: NAME read-only|read-write.", valueName: "name permission"))
    var permission: [String] = []

    @Flag(help: "Stop sharing the folder with everyone.")
    var stop = false

    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        let chosen = [!invite.isEmpty, !remove.isEmpty, !permission.isEmpty, stop].filter { $0 }.count
        guard chosen <= 1 else { throw ValidationError("choose one of --with, --remove, --permission and --stop") }
        if readOnly && invite.isEmpty { throw ValidationError("--read-only goes with --with NAME") }
        if fingerprint != nil && invite.count != 1 { throw ValidationError("--fingerprint goes with --with and one account: --with bob --fingerprint CODE") }
        if !permission.isEmpty {
            guard permission.count == 2, SharePermission(argument: permission[1]) != nil else {
                throw ValidationError("--permission takes a participant and read-only or read-write: --permission bob read-only")
            }
        }
    }

    /// The change the options ask for, or `nil` to only look.
    var change: ShareChange? {
        if !invite.isEmpty {
            return ShareChange(action: .invite, participants: invite, permission: readOnly ? .readOnly : .readWrite, fingerprint: fingerprint)
        }
        if !remove.isEmpty { return ShareChange(action: .remove, participants: remove) }
        if permission.count == 2 { return ShareChange(action: .permission, participants: [permission[0]], permission: SharePermission(argument: permission[1])) }
        if stop { return ShareChange(action: .stop) }
        return nil
    }

    func run() async throws {
        let (share, participants) = try await options.answer(.share(folder: PathArguments.absolute(folder), change: change), \.shareReport)
        if options.json {
            Output.json(ShareReport(share: share, participants: participants))
            return
        }
        Output.lines(Self.render(share, participants))
    }

    struct ShareReport: Encodable {
        let share: ShareName
        let participants: [ShareEntry]
    }

    static func render(_ share: ShareName, _ participants: [ShareEntry]) -> [String] {
        guard !participants.isEmpty else { return ["\(share) is not shared; share it with docs-status share FOLDER --with NAME"] }
        let open = participants.filter(\.status.isOpen).count
        let encrypted = participants.contains { $0.keys != nil }
        let rows = participants.map {
            [Cell($0.participant), Cell($0.permission.argument), Cell($0.status.rawValue), Cell(Format.dateTime($0.changed.date))]
                + (encrypted ? [Cell($0.keys ?? "")] : [])
        }
        return ["\(share): shared with \(Format.count(open, "participant")) (invited or accepted)" + (encrypted ? ", encrypted" : "")]
            + Table.render(header: ["PARTICIPANT", "PERMISSION", "STATUS", "SINCE"] + (encrypted ? ["KEYS"] : []), rows: rows)
    }
}

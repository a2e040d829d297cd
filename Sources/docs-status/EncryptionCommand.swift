import ArgumentParser
import DocSyncControl
import DocSyncCore
import Foundation

/// `docs-status encryption [enable | recovery-key --new | recover KEY]` (SPEC §13).
struct EncryptionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encryption",
        abstract: "Show or change the account's end-to-end encryption.",
        discussion: """
            Without an action: whether the account is encrypted and where this device \
            stands (on; awaiting approval, with the code to compare; cannot be decrypted).

            enable [FOLDER]: turns encryption on for the account (printing the recovery key \
            ONCE: write it down; with it a new device is trusted when no trusted device is \
            left) and moves this device's folders that already sync (or FOLDER alone) into \
            encrypted zones: each must be settled; it is uploaded sealed from this device, \
            its Recently Deleted re-sealed, then the server purges every plaintext record \
            and chunk. The other devices follow by themselves (once approved), keeping the \
            files they have. Folders added afterwards are encrypted from the start; there \
            is no "off".
            recovery-key --new: replaces the recovery key (the old one opens nothing any more).
            recover KEY: enters the recovery key on this device, which becomes trusted.

            \(DocsStatusExit.help)
            """
    )

    @Argument(help: ArgumentHelp("enable, recovery-key or recover, and its argument.", valueName: "action"))
    var words: [String] = []

    @Flag(name: .customLong("new"), help: "With recovery-key: make a new recovery key.")
    var newKey = false

    @OptionGroup var options: ConnectionOptions

    func action() throws -> EncryptionAction? {
        switch words.first {
        case nil: return nil
        case "enable":
            guard words.count <= 2 else { throw ValidationError("enable takes at most one folder") }
            return .enable(folder: words.dropFirst().first.map { PathArguments.absolute($0) })
        case "recovery-key":
            guard words.count == 1, newKey else { throw ValidationError("use: docs-status encryption recovery-key --new") }
            return .newRecoveryKey
        case "recover":
            guard words.count >= 2 else { throw ValidationError("use: docs-status encryption recover KEY") }
            return .recover(recoveryKey: words.dropFirst().joined(separator: "-"))
        case let other?:
            throw ValidationError("unknown action \(other.debugDescription): use enable, recovery-key --new or recover KEY")
        }
    }

    func validate() throws { _ = try action() }

    func run() async throws {
        let status = try await options.answer(.encryption(action: try action()), \.encryptionStatus)
        if options.json { Output.json(status); return }
        Output.lines(Self.render(status))
    }

    static func render(_ status: EncryptionStatus) -> [String] {
        var lines: [String] = []
        if let key = status.recoveryKey {
            lines += ["recovery key (shown once; write it down and keep it safe):", "", "    \(key)", ""]
        }
        lines.append("encryption: \(status.state.rawValue)")
        if let code = status.approvalCode { lines.append("approval code: \(code)") }
        if let message = status.message { lines.append(message) }
        for folder in status.waitingFolders ?? [] { lines.append("waiting: \(folder)") }
        for folder in status.plainFolders ?? [] { lines.append("not encrypted: \(folder)") }
        return lines
    }
}

/// `docs-status devices [approve NAME --fingerprint CODE | remove NAME]` (SPEC §13).
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the encrypted account's devices, approve a new one, or remove one.",
        discussion: """
            A new device of an encrypted account waits for approval and shows an approval \
            code (docs-status encryption there). On a trusted device, docs-status devices \
            lists it with the code this device computes: when both show the same code, run \
            docs-status devices approve NAME --fingerprint CODE. A code that differs means \
            the keys were changed on the way: the device is not approved.

            remove NAME: the device keeps what it has, but the account's keys and every \
            encrypted folder's epoch are new: it decrypts nothing written from then on. \
            The other devices follow by themselves. (Revoke its server token too: \
            docsync-server user token.)

            \(DocsStatusExit.help)
            """
    )

    @Argument(help: ArgumentHelp("approve or remove, and the device's name.", valueName: "action"))
    var words: [String] = []

    @Option(help: ArgumentHelp("The approval code the new device shows.", valueName: "code"))
    var fingerprint: String?

    @OptionGroup var options: ConnectionOptions

    func action() throws -> DeviceAction? {
        switch words.first {
        case nil:
            guard fingerprint == nil else { throw ValidationError("--fingerprint goes with approve NAME") }
            return nil
        case "approve":
            guard words.count == 2, let fingerprint else { throw ValidationError("use: docs-status devices approve NAME --fingerprint CODE") }
            return .approve(name: words[1], fingerprint: fingerprint)
        case "remove":
            guard words.count == 2, fingerprint == nil else { throw ValidationError("use: docs-status devices remove NAME") }
            return .remove(name: words[1])
        case let other?:
            throw ValidationError("unknown action \(other.debugDescription): use approve NAME --fingerprint CODE or remove NAME")
        }
    }

    func validate() throws { _ = try action() }

    func run() async throws {
        let action = try action()
        let status = try await options.answer(.devices(action: action), \.encryptionStatus)
        if options.json { Output.json(status); return }
        switch action {
        case let .approve(name, _)?: Output.line("approved \(name)")
        case let .remove(name)?: Output.line("removed \(name): the account's keys and every encrypted folder's epoch are new")
        case nil: break
        }
        Output.lines(Self.render(status))
    }

    static func render(_ status: EncryptionStatus) -> [String] {
        guard let devices = status.devices else { return EncryptionCommand.render(status) }
        let rows = devices.map { device in
            [Cell(device.name + (device.isThisDevice ? " (this device)" : "")), Cell(device.trusted ? "trusted" : "awaiting approval"), Cell(device.approvalCode)]
        }
        return Table.render(header: ["DEVICE", "STATUS", "APPROVAL CODE"], rows: rows)
    }
}

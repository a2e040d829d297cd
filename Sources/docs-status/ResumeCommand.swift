import ArgumentParser
import DocSyncControl
import DocSyncCore
import Foundation

/// `docs-status resume [FOLDER]` (SPEC §15).
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a paused folder (every folder when none is named).",
        discussion: "\(DocsStatusExit.help)")

    @Argument(help: ArgumentHelp("The folder's path or id (default: every folder).", valueName: "folder"))
    var folder: String?

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let target = folder.map { FileManager.default.fileExists(atPath: $0) ? URL(fileURLWithPath: $0).standardizedFileURL.path : $0 }
        let status = try await options.answer(.resume(folder: target), \.daemonStatus)
        if options.json { return Output.json(status) }
        for folder in status.folders { Output.line("\(folder.path): \(folder.state.rawValue)") }
    }
}

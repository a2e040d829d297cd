import ArgumentParser
import DocSyncControl
import DocSyncCore
import Foundation

/// `docs-status pause [FOLDER] [--for DURATION]` (SPEC §15).
struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause syncing a folder (every folder when none is named), until resumed or for a while.",
        discussion: """
            A paused folder sends and fetches nothing; changes made meanwhile are sent when it \
            resumes. Reads of on-demand files a program asks for still fetch. The pause is kept \
            across restarts until 'docs-status resume' or the end of --for. 'docs-status wait' \
            exits 5 while a folder is paused.

            \(DocsStatusExit.help)
            """)

    @Argument(help: ArgumentHelp("The folder's path or id (default: every folder).", valueName: "folder"))
    var folder: String?

    @Option(name: .customLong("for"), help: ArgumentHelp("How long: 90s, 30m, 2h, 1d (default: until resumed).", valueName: "duration"))
    var duration: String?

    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        if let duration, Self.seconds(duration) == nil {
            throw ValidationError("--for must be a duration like 90s, 30m, 2h or 1d, not \(duration.debugDescription)")
        }
    }

    /// `duration` in seconds: a number with an optional unit s, m, h or d; `nil` when it is not one.
    static func seconds(_ duration: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        let unit = duration.last.flatMap { units[$0] }
        guard let number = Double(unit == nil ? duration : String(duration.dropLast())), number.isFinite, number > 0 else { return nil }
        return number * (unit ?? 1)
    }

    func run() async throws {
        let target = folder.map { FileManager.default.fileExists(atPath: $0) ? URL(fileURLWithPath: $0).standardizedFileURL.path : $0 }
        let status = try await options.answer(.pause(folder: target, seconds: duration.flatMap(Self.seconds)), \.daemonStatus)
        if options.json { return Output.json(status) }
        for folder in status.folders where folder.state == .paused { Output.line("\(folder.path): \(folder.message ?? "paused")") }
    }
}

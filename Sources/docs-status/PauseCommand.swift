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

/// `docs-status limit [--upload RATE] [--download RATE]` (SPEC §15).
struct LimitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "limit",
        abstract: "Show or set the bandwidth limits of transfers to and from docsync-server.",
        discussion: """
            RATE is bytes per second, as a number or a size: 500KB, 2MB, 1MiB; 0 for none. \
            Set here, a limit holds until docsyncd restarts (upload_limit and download_limit \
            in the configuration keep one). Without options, prints the limits now.

            \(DocsStatusExit.help)
            """)

    @Option(help: ArgumentHelp("Upload limit in bytes per second (0: none).", valueName: "rate"))
    var upload: String?
    @Option(help: ArgumentHelp("Download limit in bytes per second (0: none).", valueName: "rate"))
    var download: String?

    @OptionGroup var options: ConnectionOptions

    /// Bytes per second: a whole number, or a number with a unit (B, KB, MB, GB powers of
    /// 1000; KiB, MiB, GiB of 1024; any case); `nil` when `text` is not one.
    static func rate(_ text: String) -> Int64? {
        let units: [String: Double] = ["": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "kib": 1024, "mib": 1_048_576, "gib": 1_073_741_824]
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let split = trimmed.firstIndex { !($0.isASCII && ($0.isNumber || $0 == ".")) } ?? trimmed.endIndex
        guard let number = Double(trimmed[..<split]), number.isFinite, number >= 0,
              let unit = units[trimmed[split...].trimmingCharacters(in: .whitespaces).lowercased()] else { return nil }
        let bytes = (number * unit).rounded()
        return bytes < 9e18 ? Int64(bytes) : nil
    }

    func validate() throws {
        for (name, value) in [("--upload", upload), ("--download", download)] {
            if let value, Self.rate(value) == nil { throw ValidationError("\(name) must be bytes per second (a number, or a size like 2MB), or 0 for none") }
        }
    }

    func run() async throws {
        let status = try await options.answer(.limit(upload: upload.flatMap(Self.rate), download: download.flatMap(Self.rate)), \.daemonStatus)
        if options.json { return Output.json(["upload": status.uploadLimit ?? 0, "download": status.downloadLimit ?? 0]) }
        func shown(_ rate: Int64?) -> String { rate.map { ByteCountFormatter.string(fromByteCount: $0, countStyle: .file) + "/s" } ?? "none" }
        Output.line("upload limit: \(shown(status.uploadLimit)), download limit: \(shown(status.downloadLimit))")
    }
}

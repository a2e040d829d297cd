import ArgumentParser
import DocSyncControl
import DocSyncCore
import Foundation

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

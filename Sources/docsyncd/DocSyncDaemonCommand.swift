import ArgumentParser
import DocSyncCommandLine
import DocSyncCore
import DocSyncDaemon
import DocSyncPlatform
import Foundation
import Logging

/// `docsyncd`, the per-user sync daemon (SPEC §3, §10). Runs in the foreground and logs to
/// stderr (journald-friendly).
///
/// Exit codes:
/// - 0: stopped cleanly on SIGTERM or SIGINT.
/// - 1: failed while starting or running (for example, another docsyncd already answers on
///   the control socket); the log's last line says why.
/// - 2: bad usage or a configuration error, printed to stderr as one line
///   (`docsyncd: docsync.toml:7: folders[0].mode: "mirorr" is not one of …`).
@main
struct DocSyncDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docsyncd",
        abstract: "Keep folders in sync through a docsync backend.",
        discussion: """
            With --config FILE, or with no --folder, docsyncd reads its configuration file \
            (default: $XDG_CONFIG_HOME/docsync/docsync.toml); flags override its settings for this run. \
            For one folder without a file: docsyncd --folder PATH [--folder-id ID] --backend URL.

            Exit codes: 0 stopped by SIGTERM/SIGINT, 1 failed while running, 2 usage or configuration error.
            """
    )

    @Option(name: .long, help: ArgumentHelp("The configuration file.", valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Sync just this folder (replaces the file's [[folders]]).", valueName: "path"))
    var folder: String?

    @Option(name: .customLong("folder-id"), help: ArgumentHelp("The zone name of --folder (default: made from its last path component), so folders of different names on two machines can be one zone.", valueName: "id"))
    var folderID: String?

    @Option(name: .long, help: ArgumentHelp("Attach --folder to this share of another account (as docs-status shares lists it); the folder must be empty the first time.", valueName: "owner/folder-id"))
    var share: String?

    @Option(name: .long, help: ArgumentHelp("The backend: file:///path or http(s)://host:port.", valueName: "url"))
    var backend: String?

    @Option(name: .customLong("token-file"), help: ArgumentHelp("The file holding this device's token for an HTTP backend.", valueName: "file"))
    var tokenFile: String?

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("A PEM certificate to trust for an https:// backend whose certificate no system authority signed.", valueName: "file"))
    var caFile: String?

    @Option(name: .long, help: ArgumentHelp("This machine's name in conflict copies and status (default: the host name).", valueName: "name"))
    var device: String?

    @Option(name: .customLong("state-dir"), help: ArgumentHelp("Where the index and version store live (default: $XDG_STATE_HOME/docsync).", valueName: "dir"))
    var stateDirectory: String?

    @Option(name: .long, help: ArgumentHelp("The control socket (default: $XDG_RUNTIME_DIR/docsync/control.sock).", valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("Folder mode for every folder: mirror, on-demand, send-only, receive-only.", valueName: "mode"))
    var mode: String?

    @Option(name: .long, help: ArgumentHelp("Conflict policy for every folder: keep-both, newest-wins, local-wins, remote-wins.", valueName: "policy"))
    var conflict: String?

    @Option(name: .customLong("max-file-size"), help: ArgumentHelp("Largest file synced, e.g. 50MB or 512KiB, for every folder.", valueName: "size"))
    var maxFileSize: String?

    @Option(name: .customLong("keep-versions-days"), help: ArgumentHelp("Days the version store keeps replaced and deleted files, for every folder.", valueName: "days"))
    var keepVersionsDays: Int?

    @Option(name: .customLong("delete-brake-percent"), help: ArgumentHelp("Hold local deletions once they reach this share of a folder's items (and --delete-brake-min items); 0 turns the brake off. For every folder.", valueName: "percent"))
    var deleteBrakePercent: Int?

    @Option(name: .customLong("delete-brake-min"), help: ArgumentHelp("The fewest local deletions the brake holds (with --delete-brake-percent). For every folder.", valueName: "items"))
    var deleteBrakeMinimum: Int?

    @Option(name: .customLong("merge"), help: ArgumentHelp("A glob of text files merged line-wise when edited on two devices (repeat it; '' merges none). Replaces the folders' merge lists.", valueName: "glob"))
    var merge: [String] = []

    @Option(name: .customLong("merge-max-size"), help: ArgumentHelp("Largest text file merged, e.g. 1MB, for every folder.", valueName: "size"))
    var mergeMaxSize: String?

    @Option(name: .customLong("cache-max-size"), help: ArgumentHelp("Most content an on-demand folder keeps local, e.g. 10GB; the least recently used unpinned files the server holds are evicted beyond it. For every folder.", valueName: "size"))
    var cacheMaxSize: String?

    @Option(name: .customLong("fetch-timeout"), help: ArgumentHelp("Seconds a read of content that is not local waits for the backend before it fails (EIO). For every on-demand folder.", valueName: "seconds"))
    var fetchTimeout: Int?

    @Option(name: .customLong("web-listen"), help: ArgumentHelp("Where the status page and /metrics listen: 127.0.0.1:PORT, localhost:PORT, [::1]:PORT (port 0 takes a free one), or off.", valueName: "address"))
    var webListen: String?

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        ServiceMemory.keepIdleFootprintSmall()
        logging.bootstrap()
        let logger = Logger(label: "docsyncd")

        var overrides = ConfigurationOverrides(
            device: device, stateDirectory: stateDirectory, socketPath: socket,
            backendURL: backend, tokenFile: tokenFile, caFile: caFile, folder: folder,
            mode: mode, conflictPolicy: conflict, maxFileSize: maxFileSize, keepVersionsDays: keepVersionsDays,
            folderID: folderID, deleteBrakePercent: deleteBrakePercent, deleteBrakeMinimum: deleteBrakeMinimum,
            merge: merge.isEmpty ? nil : merge, mergeMaxSize: mergeMaxSize, share: share,
            cacheMaxSize: cacheMaxSize, fetchTimeoutSeconds: fetchTimeout
        )
        overrides.webListen = webListen
        let configuration: DaemonConfiguration
        do {
            configuration = try ConfigurationLoader().load(configurationFile: config, overrides: overrides)
        } catch {
            FileHandle.standardError.write(Data("docsyncd: \(error)\n".utf8))
            throw ExitCode(2)
        }
        do {
            try await Daemon.run(configuration: configuration, logger: logger)
        } catch {
            logger.critical("docsyncd failed: \(error)")
            throw ExitCode(1)
        }
    }

    /// Usage errors exit with 2 (not argument-parser's 64).
    static func main() async { await mainExitingTwoOnUsageErrors() }
}

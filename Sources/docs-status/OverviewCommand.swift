import ArgumentParser
import DocSyncControl
import DocSyncCore

/// `docs-status` (or `docs-status status`): the overview of SPEC §7.
struct OverviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the account, each folder's state, pending transfers with progress, conflicts, problems and last sync.",
        discussion: "--json prints the daemon's status object.\n\n\(DocsStatusExit.help)"
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let status = try await options.answer(.status, \.daemonStatus)
        if options.json {
            Output.json(status)
            return
        }
        Output.line(StatusReport.render(status, inFlight: await inFlight(status)))
    }

    /// The items in flight for the progress bars, when some folder has transfers pending;
    /// `nil` when there are none or the daemon cannot say (the overview then has no bars).
    private func inFlight(_ status: DaemonStatus) async -> [ItemStatus]? {
        guard StatusReport.hasTransfers(status) else { return nil }
        let request = ControlRequest.query(predicate: StatusReport.inFlightPredicate, watch: false)
        return (try? await options.client.send(request))?.itemList
    }
}

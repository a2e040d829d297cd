import ArgumentParser
import DocSyncControl
import Foundation

/// `docs-status web [--open]` (SPEC §15): a one-time address that signs a browser in to the
/// daemon's status page.
struct WebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Print a one-time address that opens the status page in a browser.",
        discussion: """
            The page shows the folders live, what is held for you, conflicts, Recently Deleted, devices \
            and shares, and does what docs-status does with a click. The address signs one browser in \
            and works once, for ten minutes; the page listens on this machine only (web_listen, \
            default 127.0.0.1:8385). When the page is off (web_listen = "off", or its port taken by \
            another program), it says why and exits with 1.

            \(DocsStatusExit.help)
            """)

    @Flag(help: "Open the address with xdg-open as well.")
    var open = false

    @OptionGroup var options: ConnectionOptions

    struct Report: Encodable { var url: String }

    func run() async throws {
        let url = try await options.answer(.web) { response in
            if case .webSignIn(let url) = response { url } else { nil }
        }
        if options.json { Output.json(Report(url: url)) } else { Output.line(url) }
        guard open else { return }
        let opener = Process()
        opener.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        opener.arguments = ["xdg-open", url]
        do {
            try opener.run()
            opener.waitUntilExit()
        } catch {
            Output.error("cannot run xdg-open (\(error)); open the address above in a browser")
        }
    }
}

import ArgumentParser
import DocSyncControl
import DocSyncCore
import Foundation
import Synchronization

/// `docs-status kv watch --store ID [--since N]`: one JSON line per change from elsewhere,
/// until SIGINT or SIGTERM (exit 0).
///
/// Each line is `{"keys":[…],"reason":R,"sequence":N,"store":ID}`. The daemon numbers a
/// store's changes and keeps the last 1,000 across restarts; when the daemon stops, the
/// watch waits for it and asks again for the changes after the last it printed, so a
/// restart (a new account, say) loses no line. `--since N` starts after change N (`0`:
/// every change kept). A daemon not running at the start exits 3.
struct KeyValueWatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print one JSON line per change from elsewhere (reason and keys) until Ctrl-C.",
        discussion: """
            Reasons: serverChange (another device's write), initialSyncChange (this device's \
            writes made before its first fetch of the store replaced by the server's values), \
            quotaViolationChange (a write the server refused, back to the server's value), \
            accountChange (the daemon runs with another account; the values are that \
            account's). A daemon restart is waited for, and no change is missed across it.

            \(KeyValueExit.help)
            """)

    @Option(help: ArgumentHelp("Start after the change with this sequence number (0: every change kept).", valueName: "n"))
    var since: Int64?
    @OptionGroup var store: KeyValueStoreOption
    @OptionGroup var options: ConnectionOptions

    /// How a watch ended, if not by a signal.
    enum End: Sendable {
        case unreachable(ControlClientError)
        case refused(code: String, message: String)
    }

    func run() async throws {
        let client = options.client, id = store.id
        let stop = StopOnSignals()
        let last = Mutex<Int64?>(since)
        let connected = Mutex(false)
        let watching = Task { () -> End? in
            while !Task.isCancelled {
                let request = ControlRequest.keyValueWatch(store: id, since: last.withLock { $0 })
                do throws(ControlClientError) {
                    let answer = try await client.send(request, timeout: nil) { response in
                        switch response {
                        case .keyValueWatching(_, let after):
                            connected.withLock { $0 = true }
                            last.withLock { $0 = $0 ?? after }
                        case .keyValueChange(let change):
                            Output.jsonLine(change)
                            last.withLock { $0 = change.sequence }
                        default: break
                        }
                    }
                    if case .failure(let code, let message) = answer { return .refused(code: code, message: message) }
                } catch {
                    if !connected.withLock({ $0 }) { return .unreachable(error) }
                }
                // The daemon stopped (or restarts): ask again, from the last change printed.
                try? await Task.sleep(for: .milliseconds(250))
            }
            return nil
        }
        stop.onSignal { watching.cancel() }
        let end = await watching.value
        if stop.stopped { return }
        stop.disarm()
        switch end {
        case .unreachable(let error)?: throw options.report(error)
        case .refused(let code, let message)?: try options.fail(code: code, message: message, jsonLines: true)
        case nil: return
        }
    }
}

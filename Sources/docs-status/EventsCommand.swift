import ArgumentParser
import DocSyncControl
import DocSyncCore
import Foundation
import Synchronization

/// `docs-status events [--since ID] [--follow] [--json]`: the daemon's events (SPEC §15).
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print the daemon's events: folder states, problems, conflicts, starts and stops.",
        discussion: """
            One line per event: its id, time, kind, folder and message. Kinds: started, \
            stopped, folderState (a folder's state changed), problem and problemCleared (an \
            item's or folder's problem appeared or went), conflicts (the count of conflicts \
            kept as copies changed), synced (a folder sent and applied all that was pending), \
            gap (events before firstAvailable are no longer kept). Ids strictly increase, \
            across restarts too; the daemon keeps the last 10,000.

            Without --since, the last 100 events; --since ID those after ID (0: every one \
            kept). --follow then waits for new ones until Ctrl-C, and carries on after a \
            daemon restart without missing any. --json prints one JSON object per line.

            \(DocsStatusExit.help)
            """)

    @Option(help: ArgumentHelp("Print the events after this id (0: every one kept).", valueName: "id"))
    var since: Int64?

    @Flag(help: "Keep printing new events until Ctrl-C.")
    var follow = false

    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        if let since, since < 0 { throw ValidationError("--since must be an event id, 0 or more") }
    }

    func run() async throws {
        let client = options.client, json = options.json, follow = self.follow
        let last = Mutex<Int64?>(since)
        let connected = Mutex(false)
        let stop = StopOnSignals()
        let reading = Task { () -> ControlClientError? in
            while !Task.isCancelled {
                do throws(ControlClientError) {
                    let answer = try await client.send(.events(since: last.withLock { $0 }, follow: follow), timeout: follow ? nil : .seconds(30)) { response in
                        guard case .event(let event) = response else { return }
                        connected.withLock { $0 = true }
                        Self.print(event, json: json)
                        last.withLock { $0 = max($0 ?? 0, event.id) }
                    }
                    connected.withLock { $0 = true }
                    if case .eventsEnd(let end) = answer { last.withLock { $0 = max($0 ?? 0, end) } }
                    if case .failure(let code, let message) = answer { try? options.fail(code: code, message: message, jsonLines: json) }
                    if !follow { return nil }
                } catch {
                    if !connected.withLock({ $0 }) || !follow { return error }
                }
                // The daemon stopped (or restarts): ask again, after the last event printed.
                try? await Task.sleep(for: .milliseconds(250))
            }
            return nil
        }
        stop.onSignal { reading.cancel() }
        let failure = await reading.value
        if stop.stopped { return }
        stop.disarm()
        if let failure { throw options.report(failure) }
    }

    static func print(_ event: DaemonEvent, json: Bool) {
        if json { return Output.jsonLine(event) }
        let time = ISO8601DateFormatter.string(from: event.time, timeZone: .current, formatOptions: [.withInternetDateTime])
        let place = [event.folder, event.path == "." ? nil : event.path].compactMap { $0 }.joined(separator: "/")
        Output.line("\(event.id)  \(time)  \(event.kind.rawValue)" + (place.isEmpty ? "" : "  \(place)") + "  \(event.message)")
    }
}

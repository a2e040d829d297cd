import DocSyncControl
import DocSyncCore
import Foundation

/// `docs-status events` (SPEC §15): the kept events, then the new ones as they come.
extension DaemonControlHandler {
    /// Sends the events after `since` (`nil`: the last 100) and, with `follow`, every new
    /// one until the client hangs up; answers with the last id sent.
    func streamEvents(since: Int64?, follow: Bool, emit: @escaping @Sendable (ControlResponse) async -> Void) async throws -> ControlResponse {
        // Listening before reading what is kept: nothing appended in between is missed.
        let live = follow ? events.live() : nil
        let after = since ?? max(0, events.lastID() - 100)
        var last = after
        for event in try events.events(after: after) {
            await emit(.event(event: event))
            last = max(last, event.id)
        }
        if let live {
            for await event in live where event.id > last {
                if Task.isCancelled { break }
                await emit(.event(event: event))
                last = event.id
            }
        }
        return .eventsEnd(last: last)
    }
}

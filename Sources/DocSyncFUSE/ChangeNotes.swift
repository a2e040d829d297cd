import DocSyncWatcher
import Foundation
import Synchronization

/// Changes made through the mount on their way to the engine, held until the mount is quiet:
/// a burst (a `git gc`, an editor's save through a temporary file) is handed over once it is
/// over, in one piece, in the order it happened.
///
/// What a caller may rely on: every change added is handed to the engine within `longest`
/// of being added, and at most `quiet` after the last change of a burst.
final class ChangeNotes: Sendable {
    static let quiet: Duration = .milliseconds(250)
    static let longest: Duration = .seconds(2)

    private struct State {
        var events: [WatchEvent] = []
        var first: ContinuousClock.Instant?
        var last: ContinuousClock.Instant?
        var flushing = false
    }

    private let source: any OnDemandSource
    private let state = Mutex(State())

    init(source: any OnDemandSource) { self.source = source }

    func add(_ events: [WatchEvent]) {
        guard !events.isEmpty else { return }
        let now = ContinuousClock.now
        let start = state.withLock { state -> Bool in
            state.events += events
            if state.first == nil { state.first = now }
            state.last = now
            defer { state.flushing = true }
            return !state.flushing
        }
        if start { Task.detached { await self.flushWhenQuiet() } }
    }

    /// Hands what waits to the engine now: before an action that needs the engine to know
    /// every change made so far (a file made local right after it was moved).
    func flushNow() {
        let due = state.withLock { state -> [WatchEvent] in
            defer { state.events = []; state.first = nil; state.last = nil }
            return state.events
        }
        if !due.isEmpty { source.noteLocal(due) }
    }

    /// Waits until the changes are quiet or the oldest is due, hands them over, and goes on
    /// while more came meanwhile.
    private func flushWhenQuiet() async {
        while true {
            try? await Task.sleep(for: Self.quiet)
            let now = ContinuousClock.now
            let (due, done): ([WatchEvent], Bool) = state.withLock { state in
                guard let first = state.first, let last = state.last else {
                    state.flushing = false
                    return ([], true)
                }
                guard now - last >= Self.quiet || now - first >= Self.longest else { return ([], false) }
                defer { state.events = []; state.first = nil; state.last = nil }
                return (state.events, false)
            }
            if !due.isEmpty { source.noteLocal(due) }
            if done { return }
        }
    }
}

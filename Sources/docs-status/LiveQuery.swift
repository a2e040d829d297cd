#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import DocSyncControl
import DocSyncCore
import Dispatch
import Synchronization

/// `docs-status query --watch`: prints the initial result, then each change, until SIGINT
/// or SIGTERM, which close the connection and end the command with exit status 0.
struct LiveQuery {
    let predicate: String
    let options: ConnectionOptions

    func run() async throws {
        let printer = WatchPrinter(json: options.json)
        let client = options.client
        // Installed before the request goes out; a signal cancels the call, which closes
        // the connection (the daemon then ends the query), and the command returns: exit 0.
        let stop = StopOnSignals()
        let request = ControlRequest.query(predicate: predicate, watch: true)
        let watch = Task { () -> Result<ControlResponse, ControlClientError> in
            do throws(ControlClientError) {
                return .success(try await client.send(request, timeout: nil) { response in
                    if case .changes(let changes) = response { await printer.print(changes) }
                })
            } catch {
                return .failure(error)
            }
        }
        stop.onSignal { watch.cancel() }
        let result = await watch.value
        if stop.stopped { return }
        stop.disarm()
        switch result {
        case .success(.failure(let code, let message)):
            try options.fail(code: code, message: message, jsonLines: true)
        case .success(let response):
            // A final answer while watching: the daemon ended the query (it is stopping).
            if response.itemList == nil { try options.unexpected(response) }
            Output.error("docsyncd ended the live query (it is stopping)")
            throw DocsStatusExit.failure
        case .failure(let error):
            throw options.report(error)
        }
    }
}

/// Prints a live query's changes: human lines or one JSON object per line.
actor WatchPrinter {
    /// One `--watch --json` line.
    struct Event: Encodable {
        let event: String
        let item: ItemStatus
    }

    private let json: Bool
    /// The current result, by folder and path, to tell what changed.
    private var known: [Key: ItemStatus] = [:]

    /// Folder and path as bytes: two names that differ only in normalization are two items.
    private struct Key: Hashable {
        let folder: PathKey
        let path: PathKey
        init(_ item: ItemStatus) { (folder, path) = (PathKey(item.folder), PathKey(item.path)) }
    }

    init(json: Bool) {
        self.json = json
    }

    func print(_ changes: ItemChanges) {
        if changes.initial {
            known = [:]
            for item in changes.added { known[Key(item)] = item }
            if json {
                for item in changes.added { Output.jsonLine(Event(event: "initial", item: item)) }
            } else {
                Output.lines(ItemReport.render(changes.added, empty: "no matches"))
            }
            return
        }
        for item in changes.added {
            known[Key(item)] = item
            emit("added", item, human: Color.green.paint("+") + " " + ItemReport.path(item))
        }
        for item in changes.changed {
            let what = ItemReport.change(from: known[Key(item)], to: item)
            known[Key(item)] = item
            emit("changed", item, human: Color.yellow.paint("~") + " " + ItemReport.path(item) + " (\(what))")
        }
        for item in changes.removed {
            known[Key(item)] = nil
            emit("removed", item, human: Color.red.paint("-") + " " + ItemReport.path(item))
        }
    }

    private func emit(_ event: String, _ item: ItemStatus, human: String) {
        if json {
            Output.jsonLine(Event(event: event, item: item))
        } else {
            Output.line(human)
        }
    }
}

/// From its creation, SIGINT and SIGTERM no longer kill the process: the first one runs the
/// action given to `onSignal` (at once if the signal came before it), and if the process has
/// not ended two seconds later, it exits 0 anyway.
final class StopOnSignals {
    /// What the signal handlers share with the command.
    private final class State: Sendable {
        private struct Value {
            var stopped = false
            var action: (@Sendable () -> Void)?
        }

        private let value = Mutex(Value())

        var stopped: Bool { value.withLock { $0.stopped } }

        func onSignal(_ action: @escaping @Sendable () -> Void) {
            let stopped = value.withLock { value in
                value.action = action
                return value.stopped
            }
            if stopped { action() }
        }

        /// Marks the command stopped and runs its action, the first time only.
        func stop() {
            let first: (run: Bool, action: (@Sendable () -> Void)?) = value.withLock { value in
                if value.stopped { return (false, nil) }
                value.stopped = true
                return (true, value.action)
            }
            guard first.run else { return }
            first.action?()
            StopOnSignals.queue.asyncAfter(deadline: .now() + 2) { exit(0) }
        }
    }

    private static let queue = DispatchQueue(label: "docs-status.signals")
    private let state = State()
    private let sources: [any DispatchSourceSignal]

    /// Whether SIGINT or SIGTERM came.
    var stopped: Bool { state.stopped }

    init() {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: Self.queue)
        }
        for source in sources {
            source.setEventHandler { [state] in state.stop() }
            source.resume()
        }
    }

    /// What the first signal does.
    func onSignal(_ action: @escaping @Sendable () -> Void) {
        state.onSignal(action)
    }

    /// Gives the signals back their default action.
    func disarm() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

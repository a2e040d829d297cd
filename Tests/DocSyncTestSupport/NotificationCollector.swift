import DocSyncCore
import DocSyncStorage

/// Gathers, in the background, the zones named by a backend's notification stream.
public final class NotificationCollector: Sendable {
    private let state = Synchronized([Set<ZoneID>]())
    private let task: Task<Void, Never>

    public init(_ stream: AsyncStream<ChangeNotification>) {
        let state = self.state
        task = Task { for await note in stream { state.update { $0.append(note.zones) } } }
    }

    /// Every zone named so far.
    public var zones: Set<ZoneID> { state.value.reduce(into: []) { $0.formUnion($1) } }

    /// The zones of each notification so far, in the order they came.
    public var notes: [Set<ZoneID>] { state.value }

    deinit { task.cancel() }
}

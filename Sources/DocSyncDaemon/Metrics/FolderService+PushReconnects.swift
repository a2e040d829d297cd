import DocSyncHTTP
import DocSyncStorage

extension FolderService {
    /// The backend's change notifications for this folder. From a docsync-server, each
    /// reconnection of the push stream is counted in the engine's metrics
    /// (`EngineMeasurement.pushReconnected`); the embedded backend's stream never reconnects.
    func changeNotifications() -> AsyncStream<ChangeNotification> {
        guard let client = backend as? HTTPBackend else { return backend.changeNotifications() }
        let metrics = engine.metrics
        return client.changeNotifications(onReconnect: { metrics.record(.pushReconnected) })
    }
}

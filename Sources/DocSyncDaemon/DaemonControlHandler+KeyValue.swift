import DocSyncControl
import DocSyncCore
import Foundation

/// The key-value store calls (SPEC §12): `docs-status kv`, and programs on the socket.
extension DaemonControlHandler {
    /// Answers a `keyValue…` request. A refused write answers `.failure` with the code
    /// `quotaExceeded` (over a limit: nothing changed) or `invalidArguments`.
    func keyValue(_ request: ControlRequest, emit: @escaping @Sendable (ControlResponse) async -> Void) async throws -> ControlResponse {
        if let id = request.keyValueStore, [KeyDirectory.storeName, KeyDirectory.publicStoreName].contains(id.name) {
            // The account's key directory (SPEC §13): written by docsyncd alone.
            throw HandlerFailure(ControlResponse.FailureCode.invalidArguments, "the store \(id) is reserved for the account's keys; choose another store id")
        }
        do {
            switch request {
            case .keyValueGet(let id, let key):
                return .keyValue(store: id, key: key, value: try await keyValues.store(id).value(of: key))
            case .keyValueSet(let id, let key, let value):
                try await keyValues.store(id).write(value, to: key)
                return .keyValue(store: id, key: key, value: value)
            case .keyValueRemove(let id, let key):
                try await keyValues.store(id).write(nil, to: key)
                return .keyValue(store: id, key: key, value: nil)
            case .keyValueList(let id):
                let values = try await keyValues.store(id).values()
                return .keyValues(store: id, values: Dictionary(uniqueKeysWithValues: values.map { ($0.key.name, $0.value) }))
            case .keyValueWatch(let id, let since):
                let (start, changes) = try await keyValues.store(id).watch(after: since)
                await emit(.keyValueWatching(store: id, after: start))
                var last = start
                for await change in changes {
                    if Task.isCancelled { break }
                    await emit(.keyValueChange(change: change))
                    last = change.sequence
                }
                return .keyValueWatching(store: id, after: last)
            default:
                throw HandlerFailure(ControlResponse.FailureCode.badRequest, "not a key-value call")
            }
        } catch let error as SyncError {
            throw HandlerFailure(error.code.rawValue, error.message)
        }
    }
}

extension ControlRequest {
    /// The store a key-value call names, `nil` for any other call.
    var keyValueStore: KeyValueStoreID? {
        switch self {
        case .keyValueGet(let id, _), .keyValueSet(let id, _, _), .keyValueRemove(let id, _), .keyValueList(let id), .keyValueWatch(let id, _): id
        default: nil
        }
    }
}

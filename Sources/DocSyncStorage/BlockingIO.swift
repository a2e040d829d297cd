import DocSyncCore
import Foundation

/// Runs blocking file-system work (reads, writes, fsync) on a global dispatch queue, so it
/// never holds one of the few threads of Swift's cooperative pool.
public func offload<T: Sendable>(_ body: @escaping @Sendable () throws(SyncError) -> T) async throws(SyncError) -> T {
    let result: Result<T, SyncError> = await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            do throws(SyncError) {
                continuation.resume(returning: .success(try body()))
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
    }
    return try result.get()
}

import DocSyncCore
import DocSyncPlatform
import DocSyncStorage
import Foundation

/// A fresh `MemoryBackend` per conformance case.
///
/// Its clock is the wall clock by default: the suite compares deletion times with
/// `Timestamp.now` and waits real seconds for a retention to pass. The backend keeps no
/// state per client, so "another client" is the same backend, as every device of a
/// simulation shares one.
public struct MemoryBackendFixtureFactory: BackendFixtureFactory {
    public let clock: @Sendable () -> Timestamp

    public init(clock: @escaping @Sendable () -> Timestamp = { Timestamp.now }) {
        self.clock = clock
    }

    public func makeFixture(settings: StoreSettings) async throws -> BackendFixture {
        var settings = settings
        settings.collectionInterval = 0
        let backend = MemoryBackend(settings: settings, clock: clock)
        return BackendFixture(
            backend: backend,
            openAnotherClient: { backend },
            corruptChunk: { digest in backend.corruptChunk(digest) },
            compactAllTombstones: { backend.compactTombstones(deletedThrough: Timestamp(nanosecondsSince1970: .max)) },
            collectGarbage: {
                let report = backend.collectGarbage()
                if let reason = report.stoppedBecause { throw CollectionFailure(description: "the collection stopped: \(reason)") }
            }
        )
    }
}

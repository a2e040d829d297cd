import DocSyncCore
import DocSyncStorage
import Foundation

/// A fresh backend for one conformance case, with the hooks the suite needs to reach past
/// the protocol: a second client of the same storage, damaging a stored chunk, and forcing
/// tombstone compaction.
public struct BackendFixture: Sendable {
    public let backend: any StorageBackend
    /// Another client of the same storage, as a second device or process would see it
    /// (also how the suite "reopens" a backend).
    public let openAnotherClient: @Sendable () async throws -> any StorageBackend
    /// Overwrites the stored bytes of a chunk so that they no longer match its digest.
    public let corruptChunk: @Sendable (SHA256Digest) async throws -> Void
    /// Compacts every tombstone, however young.
    public let compactAllTombstones: @Sendable () async throws -> Void

    public init(
        backend: any StorageBackend, openAnotherClient: @escaping @Sendable () async throws -> any StorageBackend,
        corruptChunk: @escaping @Sendable (SHA256Digest) async throws -> Void,
        compactAllTombstones: @escaping @Sendable () async throws -> Void
    ) {
        self.backend = backend
        self.openAnotherClient = openAnotherClient
        self.corruptChunk = corruptChunk
        self.compactAllTombstones = compactAllTombstones
    }
}

/// Makes a fresh, empty `BackendFixture` per call. One per backend kind.
public protocol BackendFixtureFactory: Sendable {
    func makeFixture() async throws -> BackendFixture
}

/// The embedded local backend in a temporary directory.
public struct LocalBackendFixtureFactory: BackendFixtureFactory {
    public init() {}

    public func makeFixture() async throws -> BackendFixture {
        let directory = try TemporaryDirectory("docsync-backend")
        let url = directory.url
        let backend = try LocalBackend(directory: url)
        return BackendFixture(
            backend: backend,
            openAnotherClient: { _ = directory; return try LocalBackend(directory: url) },
            corruptChunk: { digest in try corruptStoredChunk(digest, in: backend) },
            compactAllTombstones: { try backend.compactTombstones(olderThan: -1) }
        )
    }
}

/// Flips the first byte of a chunk inside its pack file, so that its stored bytes no longer
/// match its digest. Does nothing when the chunk is not stored.
public func corruptStoredChunk(_ digest: SHA256Digest, in backend: LocalBackend) throws {
    guard let place = try backend.chunkLocation(digest) else { return }
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: place.path))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(place.offset))
    let first = try handle.read(upToCount: 1) ?? Data([0])
    try handle.seek(toOffset: UInt64(place.offset))
    try handle.write(contentsOf: Data([first[first.startIndex] ^ 0xff]))
}

/// Another factory's backends behind a `FaultInjectingBackend` with `plan`; hooks pass through.
public struct FaultInjectingFixtureFactory<Inner: BackendFixtureFactory>: BackendFixtureFactory {
    public let inner: Inner
    public let plan: FaultPlan

    public init(wrapping inner: Inner, plan: FaultPlan) {
        self.inner = inner
        self.plan = plan
    }

    public func makeFixture() async throws -> BackendFixture {
        let fixture = try await inner.makeFixture()
        let plan = self.plan
        return BackendFixture(
            backend: FaultInjectingBackend(wrapping: fixture.backend, plan: plan),
            openAnotherClient: { FaultInjectingBackend(wrapping: try await fixture.openAnotherClient(), plan: plan) },
            corruptChunk: fixture.corruptChunk,
            compactAllTombstones: fixture.compactAllTombstones
        )
    }
}

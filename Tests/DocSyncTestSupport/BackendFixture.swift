import DocSyncCore
import DocSyncStorage
import Foundation

/// A fresh backend for one conformance case, with the hooks the suite needs to reach past
/// the protocol: a second client of the same storage, damaging a stored chunk, forcing
/// tombstone compaction, and running a garbage collection of the storage.
public struct BackendFixture: Sendable {
    public let backend: any StorageBackend
    /// Another client of the same storage, as a second device or process would see it
    /// (also how the suite "reopens" a backend).
    public let openAnotherClient: @Sendable () async throws -> any StorageBackend
    /// Overwrites the stored bytes of a chunk so that they no longer match its digest.
    public let corruptChunk: @Sendable (SHA256Digest) async throws -> Void
    /// Compacts every tombstone, however young.
    public let compactAllTombstones: @Sendable () async throws -> Void
    /// Runs one whole garbage collection of the storage with the fixture's settings, as the
    /// store's schedule or `docsync-server gc` would, and returns when it is over.
    public let collectGarbage: @Sendable () async throws -> Void
    /// Releases what the fixture holds beyond memory (connections, a database, a bucket);
    /// called once a case is over, pass or fail.
    public let close: @Sendable () async -> Void

    public init(
        backend: any StorageBackend, openAnotherClient: @escaping @Sendable () async throws -> any StorageBackend,
        corruptChunk: @escaping @Sendable (SHA256Digest) async throws -> Void,
        compactAllTombstones: @escaping @Sendable () async throws -> Void,
        collectGarbage: @escaping @Sendable () async throws -> Void,
        close: @escaping @Sendable () async -> Void = {}
    ) {
        self.backend = backend
        self.openAnotherClient = openAnotherClient
        self.corruptChunk = corruptChunk
        self.compactAllTombstones = compactAllTombstones
        self.collectGarbage = collectGarbage
        self.close = close
    }
}

/// Makes a fresh, empty `BackendFixture` per call. One per backend kind.
public protocol BackendFixtureFactory: Sendable {
    /// A fixture whose storage keeps deleted records and replaced versions, and collects
    /// garbage, by `settings` (its schedule never runs during a case: collections happen
    /// through `collectGarbage` only).
    func makeFixture(settings: StoreSettings) async throws -> BackendFixture
}

extension BackendFixtureFactory {
    /// A fixture with the default settings.
    public func makeFixture() async throws -> BackendFixture {
        try await makeFixture(settings: StoreSettings(collectionInterval: 0))
    }
}

/// The embedded local backend in a temporary directory.
public struct LocalBackendFixtureFactory: BackendFixtureFactory {
    public init() {}

    public func makeFixture(settings: StoreSettings) async throws -> BackendFixture {
        let directory = try TemporaryDirectory("docsync-backend")
        let url = directory.url
        var settings = settings
        settings.collectionInterval = 0
        let options = LocalBackend.Options(settings: settings)
        let backend = try LocalBackend(directory: url, options: options)
        return BackendFixture(
            backend: backend,
            openAnotherClient: { _ = directory; return try LocalBackend(directory: url, options: options) },
            corruptChunk: { digest in try corruptStoredChunk(digest, in: backend) },
            compactAllTombstones: { try backend.compactTombstones(olderThan: -1) },
            collectGarbage: { try await collectFully(backend) }
        )
    }
}

/// Runs a collection of `backend`'s store, waiting (at most 30 seconds) while another
/// collector works on it, and fails when the collection stopped early.
public func collectFully(_ backend: LocalBackend) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while true {
        let report = try await backend.collectGarbage()
        if let reason = report.stoppedBecause { throw CollectionFailure(description: "the collection stopped: \(reason)") }
        if report.ran { return }
        guard ContinuousClock.now < deadline else { throw CollectionFailure(description: "another collector held the store for 30 s") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

public struct CollectionFailure: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) { self.description = description }
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

    public func makeFixture(settings: StoreSettings) async throws -> BackendFixture {
        let fixture = try await inner.makeFixture(settings: settings)
        let plan = self.plan
        return BackendFixture(
            backend: FaultInjectingBackend(wrapping: fixture.backend, plan: plan),
            openAnotherClient: { FaultInjectingBackend(wrapping: try await fixture.openAnotherClient(), plan: plan) },
            corruptChunk: fixture.corruptChunk,
            compactAllTombstones: fixture.compactAllTombstones,
            collectGarbage: fixture.collectGarbage,
            close: fixture.close
        )
    }
}

import DocSyncCore
import DocSyncServer
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// A server keeps each user's storage open; `releaseIdle` frees the caches of those no
/// request has used for a while, once per idle spell, and never those in use.
@Suite struct UserBackendsTests {
    @Test func idleStorageIsReleasedOncePerIdleSpell() throws {
        let directory = try TemporaryDirectory()
        let backends = UserBackends(dataDirectory: directory.url)
        let alice = try backends.backend(for: "alice")
        _ = try backends.backend(for: "bob")
        let opened = ContinuousClock.now
        // Nothing has been idle for a minute yet.
        #expect(backends.releaseIdle(for: .seconds(60), now: opened) == [])
        #expect(backends.releaseIdle(for: .seconds(60), now: opened + .seconds(61)) == ["alice", "bob"])
        // Already released: not again while still idle.
        #expect(backends.releaseIdle(for: .seconds(60), now: opened + .seconds(200)) == [])
        // Used again: the same backend, busy now, released once idle again.
        #expect(try backends.backend(for: "alice") === alice)
        let used = ContinuousClock.now
        #expect(backends.releaseIdle(for: .seconds(60), now: used + .seconds(30)) == [])
        #expect(backends.releaseIdle(for: .seconds(60), now: used + .seconds(61)) == ["alice"])
    }

    @Test func releasedStorageStillServes() async throws {
        let directory = try TemporaryDirectory()
        let backends = UserBackends(dataDirectory: directory.url)
        let zone = ZoneID("Docs")
        let backend = try backends.backend(for: "alice")
        try await backend.createZone(zone)
        let saved = TestRecords.folder(zone, "Projects")
        _ = try await backend.modifyRecords(RecordBatch(zone: zone, saves: [saved]))
        #expect(backends.releaseIdle(for: .zero) == ["alice"])
        let found = try await backends.backend(for: "alice").fetchRecords([saved.id])
        #expect(found[saved.id]?.path == saved.path)
    }
}

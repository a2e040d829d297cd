import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Real processes sharing one backend directory.
@Suite struct LocalBackendMultiProcessTests {
    @Test func twoProcessesWritingAtOnceLoseNothing() async throws {
        let directory = try TemporaryDirectory("docsync-multiprocess")
        let zone = ZoneID("Shared")
        let backend = try LocalBackend(directory: directory.url)
        try await backend.createZone(zone)
        let counter = try await backend.save(TestRecords.folder(zone, "counter-0", name: "counter"))
        let notes = NotificationCollector(backend.changeNotifications())

        let writer = builtProduct("docsync-test-writer")
        let perProcess = 150
        async let first = runProcess(writer, [directory.path, zone.name, "alpha", "\(perProcess)", counter.id.recordName])
        async let second = runProcess(writer, [directory.path, zone.name, "beta", "\(perProcess)", counter.id.recordName])
        let results = try await [first, second]
        for result in results {
            #expect(result.status == 0, "writer failed: \(result.errors)")
        }

        let all = try await backend.fetchAllChanges(in: zone, since: nil, pageSize: 1000)
        #expect(all.changed.count == 2 * perProcess + 1)
        for prefix in ["alpha", "beta"] {
            for index in 0..<perProcess {
                #expect(all.changed[RecordID(zone: zone, recordName: "\(prefix)-\(index)")] != nil)
            }
        }
        // One bump per batch of 10, from both processes, none lost to a race.
        #expect(all.changed[counter.id]?.path == RelativePath("counter-\(2 * perProcess / 10)"))
        #expect(await eventually { notes.zones.contains(zone) }, "commits in other processes reach this one's notification stream")
        withExtendedLifetime(directory) {}
    }
}

import DocSyncCore
@testable import DocSyncScaleOut
import DocSyncTestSupport
import Testing

/// Streams opened before an instance listens (a device reaching an instance that is still
/// starting, or reconnecting to the database) hear of every zone once listening begins:
/// a commit made before then was not heard (the conformance suite's push case missed one
/// on a loaded run). When listening stops, the streams are ended without a crash (finishing
/// them under the notifier's lock crashed: each stream's end takes that lock to forget itself).
@Suite struct ScaleOutNotifierTests {
    @Test func streamsOpenedBeforeListeningHearOfEveryZoneWhenItBegins() async throws {
        let storage = try await ScaleOutTestStorage.make()
        do {
            let store = try await storage.open()
            let account = try #require(try await store.accountID(named: "ana", create: true))
            try await store.backend(account: account).createZone(ZoneID("Notes"))
            _ = try await store.backend(account: account).save(TestRecords.folder(ZoneID("Notes"), "made before listening"))

            let notifier = ScaleOutNotifier(logger: ScaleOutTestStorage.logger)
            let heard = NotificationCollector(notifier.stream(for: account))
            let other = NotificationCollector(notifier.stream(for: account + 1))
            #expect(!notifier.isListening)
            let listening = Task { await notifier.run(store.client) }
            #expect(await eventually(timeout: .seconds(60)) { heard.zones.contains(ZoneID("Notes")) }, "told once listening began")
            #expect(notifier.isListening)
            #expect(other.zones.isEmpty, "an account with no zones hears nothing")
            listening.cancel()
            await listening.value
        } catch {
            await storage.close()
            throw error
        }
        await storage.close()
    }
}

import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Synchronization
import Testing

/// SPEC §6 status during slow transfers: `isUploading`/`isDownloading` with percentages
/// that rise chunk batch by chunk batch, then settle at uploaded / current.
@Suite("Transfer progress")
struct TransferProgressTests {
    /// Samples `path`'s status on `device` every few milliseconds until `done` holds. The
    /// deadline is generous: alone a transfer takes seconds, but in a full run on two cores
    /// the chunking and the thousands of slowed calls have taken over two minutes.
    func sample(_ device: EngineDevice, _ path: String, until done: @escaping @Sendable (ItemStatus?) -> Bool) async -> [ItemStatus] {
        var samples: [ItemStatus] = []
        let deadline = ContinuousClock.now + .seconds(360)
        while ContinuousClock.now < deadline {
            let item = (try? device.engine.item(at: RelativePath(path))) ?? nil
            if let item { samples.append(item) }
            if done(item) { break }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return samples
    }

    @Test func slowTransfersShowRisingPercentages() async throws {
        let base = try TemporaryDirectory("docsync-progress")
        let local = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        // Every backend call takes a millisecond: thousands of chunks take seconds.
        let slow = FaultInjectingBackend(wrapping: local, plan: FaultPlan(latency: .milliseconds(1)))
        let a = try EngineDevice(name: "alpha", base: base.url, backend: slow, transferConcurrency: 1)
        let b = try EngineDevice(name: "beta", base: base.url, backend: slow)
        defer { a.stop(); b.stop() }
        try a.write("big.bin", "small at first\n")
        #expect(await eventually(timeout: .seconds(60)) { b.read("big.bin") == "small at first\n" && a.engine.isSettled && b.engine.isSettled })

        var random = SeededRandom(seed: 42)
        try Data(random.bytes(12 << 20)).write(to: a.file("big.bin"))
        a.engine.noteLocal([.changed("big.bin")])
        let uploads = await sample(a, "big.bin") { $0?.size == 12 << 20 && $0?.isUploaded == true && $0?.isUploading == false }
        let sending = uploads.filter(\.isUploading).map(\.percentUploaded)
        #expect(Set(sending.filter { $0 > 0 && $0 < 100 }).count >= 1, "rising upload percentages: \(Set(sending).sorted())")
        #expect(sending == sending.sorted(), "upload percentages never go back")
        #expect(uploads.last?.percentUploaded == 100)

        let downloads = await sample(b, "big.bin") { $0?.downloadingStatus == "current" && $0?.isDownloading == false && $0?.size == 12 << 20 }
        let receiving = downloads.filter(\.isDownloading).map(\.percentDownloaded)
        #expect(Set(receiving.filter { $0 > 0 && $0 < 100 }).count >= 2, "rising download percentages: \(Set(receiving).sorted())")
        #expect(receiving == receiving.sorted(), "download percentages never go back")
        #expect(downloads.contains { $0.downloadingStatus == "downloaded" }, "the old copy is shown as not the latest meanwhile")
        #expect(downloads.last?.percentDownloaded == 100)
        #expect(FileManager.default.contents(atPath: b.file("big.bin").path) == FileManager.default.contents(atPath: a.file("big.bin").path))
    }
}

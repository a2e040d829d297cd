import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Synchronization
import Testing

/// Files whose content outgrows one page's memory budget (16 MiB of kept bytes) are spread
/// over several pages, each read while the page before uploads its chunks and the one before
/// that saves its records: every file arrives, every byte is uploaded once, and no record is
/// saved before its chunks (the backend would refuse it).
@Suite("Large files over several pages")
struct LargeFilePagesTests {
    @Test func sixFilesOf6MiBAndSmallOnesArriveWithEachByteUploadedOnce() async throws {
        let base = try TemporaryDirectory("docsync-large-pages")
        let backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        let sender = TransferCountingBackend(backend)
        let a = try EngineDevice(name: "alpha", base: base.url, backend: sender)
        let b = try EngineDevice(name: "beta", base: base.url, backend: backend)
        var generator = SplitMix64(seed: 31)
        var total = 0
        for index in 0..<6 {
            var content = Data(count: 6 << 20)
            content.withUnsafeMutableBytes { raw in for i in raw.indices { raw[i] = UInt8(truncatingIfNeeded: generator.next()) } }
            try content.write(to: a.file("large-\(index).bin"))
            total += content.count
        }
        try FileManager.default.createDirectory(at: a.file("notes"), withIntermediateDirectories: true)
        for index in 0..<40 {
            let text = "note \(index) " + String(repeating: "x", count: index * 37)
            try a.write("notes/\(index).txt", text)
            total += text.utf8.count
        }
        a.rescan()
        #expect(await eventually(timeout: .seconds(180)) { sameTrees(a, b) && a.engine.isSettled && b.engine.isSettled })
        for index in 0..<6 {
            #expect(FileManager.default.contents(atPath: b.file("large-\(index).bin").path) == FileManager.default.contents(atPath: a.file("large-\(index).bin").path))
        }
        let uploaded = sender.bytesUploaded.load(ordering: .relaxed)
        // The content once, plus the manifest nodes of the six large files (a few KiB each).
        #expect(uploaded >= total, "uploaded \(uploaded) bytes of \(total)")
        #expect(uploaded <= total + (256 << 10), "uploaded \(uploaded) bytes for \(total) bytes of content")
        #expect(sender.recordsRefused.load(ordering: .relaxed) == 0, "a record was saved before its chunks were uploaded")
    }
}

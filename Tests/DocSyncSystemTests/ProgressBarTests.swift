import DocSyncCore
import Foundation
import Testing
@testable import docs_status

/// `docs-status`'s progress line (SPEC §7: long transfers show progress): the pure
/// rendering and what each long call measures. (Its drawing on a terminal, and its absence
/// anywhere else, are `DocSyncControlTests.CommandLineFinishTests`.)
@Suite struct ProgressBarTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var done: Int64, total: Int64, width: Int, label: String
        var expected: String
        var testDescription: String { "\(done)/\(total) in \(width): \(expected)" }
    }

    static let cases: [Case] = [
        Case(done: 0, total: 100, width: 80, label: "sending", expected: "sending [------------------------------]   0%"),
        Case(done: 50, total: 100, width: 80, label: "sending", expected: "sending [###############---------------]  50%"),
        Case(done: 100, total: 100, width: 80, label: "sending", expected: "sending [##############################] 100%"),
        // Rounded down: never full, never 100%, before the end.
        Case(done: 99, total: 100, width: 80, label: "sending", expected: "sending [#############################-]  99%"),
        Case(done: Int64.max - 1, total: Int64.max, width: 80, label: "x", expected: "x [#############################-]  99%"),
        Case(done: 1, total: 3_000_000_000_000, width: 80, label: "x", expected: "x [------------------------------]   0%"),
        // Out of range: clamped.
        Case(done: 150, total: 100, width: 80, label: "sending", expected: "sending [##############################] 100%"),
        Case(done: -5, total: 100, width: 80, label: "sending", expected: "sending [------------------------------]   0%"),
        // Nothing measurable: the words alone.
        Case(done: 0, total: 0, width: 80, label: "recovering (3 s)", expected: "recovering (3 s)"),
        Case(done: 5, total: -1, width: 10, label: "recovering (3 s)", expected: "recoverin…"),
        // The bar shrinks to the line, then the label is cut.
        Case(done: 1, total: 3, width: 30, label: "sending", expected: "sending [#####----------]  33%"),
        Case(done: 0, total: 10, width: 30, label: "downloading 12 of 345 files (1.2 GB of 3 GB)",
             expected: "downloading… [----------]   0%"),
        Case(done: 1, total: 4, width: 80, label: "", expected: "[#######-----------------------]  25%"),
        Case(done: 1, total: 2, width: 19, label: "sending", expected: "[######------]  50%"),
        Case(done: 1, total: 2, width: 20, label: "sending", expected: "s… [#####-----]  50%"),
        // Too narrow for a bar: the percentage first.
        Case(done: 42, total: 100, width: 17, label: "sending", expected: "42% sending"),
        Case(done: 42, total: 100, width: 8, label: "sending", expected: "42% sen…"),
        Case(done: 42, total: 100, width: 0, label: "sending", expected: "…"),
    ]

    @Test(arguments: cases)
    func renders(_ example: Case) {
        #expect(ProgressBar.render(done: example.done, total: example.total, width: example.width, label: example.label) == example.expected)
    }

    @Test func neverWiderThanTheLineNorAnEscape() {
        let labels = ["", "x", "waiting: 12 to send (4.5 MB), 3 to apply (1 MB)", String(repeating: "é", count: 200)]
        for width in 1...130 {
            for label in labels {
                for (done, total) in [(Int64(0), Int64(1)), (7, 9), (9, 9), (0, 0), (Int64.max, Int64.max)] {
                    let line = ProgressBar.render(done: done, total: total, width: width, label: label)
                    #expect(line.count <= width, "\(width) \(label): \(line)")
                    #expect(!line.contains("\u{1B}") && !line.contains("\r") && !line.contains("\n"))
                }
            }
        }
    }

    @Test func elapsedTime() {
        #expect(ProgressBar.elapsed(.zero) == "0 s")
        #expect(ProgressBar.elapsed(.milliseconds(59_900)) == "59 s")
        #expect(ProgressBar.elapsed(.seconds(60)) == "1 min 00 s")
        #expect(ProgressBar.elapsed(.seconds(125)) == "2 min 05 s")
    }

    @Test func activityLineHasNoBar() async {
        let sample = await CallProgress.activity("recovering from Recently Deleted")(.seconds(3))
        #expect(sample == ProgressSample(done: 0, total: 0, label: "recovering from Recently Deleted (3 s)"))
    }

    // MARK: wait

    static func status(_ folders: [(uploads: Int, uploadBytes: Int64, downloads: Int, downloadBytes: Int64)]) -> DaemonStatus {
        DaemonStatus(device: "d", backend: "file:///b", account: "signed in", folders: folders.enumerated().map { index, folder in
            FolderStatus(id: "F\(index)", path: "/f\(index)", state: folder.uploads + folder.downloads == 0 ? .idle : .syncing,
                         pendingUploads: folder.uploads, pendingUploadBytes: folder.uploadBytes,
                         pendingDownloads: folder.downloads, pendingDownloadBytes: folder.downloadBytes)
        })
    }

    @Test func waitCountsWhatLeftThePendingCounts() {
        let tracker = CallProgress.PendingTracker()
        let first = tracker.sample(Self.status([(2, 3_000_000, 0, 0), (0, 0, 1, 1_000_000)]))
        #expect(first == ProgressSample(done: 0, total: 4_000_000, label: "waiting: 2 to send (3 MB), 1 to apply (1 MB)"))
        let second = tracker.sample(Self.status([(1, 1_000_000, 0, 0), (0, 0, 1, 1_000_000)]))
        #expect(second.done == 2_000_000 && second.total == 4_000_000)
        // New work arriving grows the total; what was done stays done.
        let third = tracker.sample(Self.status([(1, 5_000_000, 0, 0), (0, 0, 0, 0)]))
        #expect(third.done == 3_000_000 && third.total == 8_000_000)
        #expect(third.label == "waiting: 1 to send (5 MB)")
        let last = tracker.sample(Self.status([(0, 0, 0, 0), (0, 0, 0, 0)]))
        #expect(last == ProgressSample(done: 8_000_000, total: 8_000_000, label: "waiting: settling"))
    }

    @Test func recoverAndRestoreCountTheItemsTheFoldersShowDone() {
        var status = Self.status([(0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0)])
        #expect(CallProgress.sample(of: FolderActivity.recovering, in: status) == nil, "nothing shown yet")
        status.folders[0].activity = FolderActivity(action: FolderActivity.recovering, done: 200, total: 500)
        status.folders[1].activity = FolderActivity(action: FolderActivity.restoring, done: 3, total: 9)
        status.folders[2].activity = FolderActivity(action: FolderActivity.recovering, done: 0, total: 1)
        #expect(CallProgress.sample(of: FolderActivity.recovering, in: status)
            == ProgressSample(done: 200, total: 501, label: "recovering from Recently Deleted: 200 of 501 items"))
        #expect(CallProgress.sample(of: FolderActivity.restoring, in: status)
            == ProgressSample(done: 3, total: 9, label: "restoring held deletions: 3 of 9 items"))
    }

    @Test func waitWithoutBytesCountsItemsAndNamesBusyFolders() {
        let tracker = CallProgress.PendingTracker()
        // Deletions carry no bytes: items are the measure.
        let first = tracker.sample(Self.status([(4, 0, 0, 0)]))
        #expect(first == ProgressSample(done: 0, total: 4, label: "waiting: 4 to send"))
        let second = tracker.sample(Self.status([(1, 0, 0, 0)]))
        #expect(second.done == 3 && second.total == 4)
        var scanning = Self.status([(0, 0, 0, 0)])
        scanning.folders[0].state = .scanning
        let idleTracker = CallProgress.PendingTracker()
        #expect(idleTracker.sample(scanning) == ProgressSample(done: 0, total: 0, label: "waiting: F0 scanning"))
    }

    // MARK: download

    static func item(_ path: String, kind: String = "Document", size: Int64 = 1_000_000, status: String = "notDownloaded",
                     downloading: Double? = nil) -> ItemStatus {
        ItemStatus(folder: "Movies", path: path, name: path, kind: kind, size: size, modified: Date(timeIntervalSince1970: 0),
                   downloadingStatus: status, isDownloading: downloading != nil, percentDownloaded: downloading ?? 0,
                   isUploading: false, isUploaded: true, percentUploaded: 100, downloadingError: nil, uploadingError: nil,
                   hasUnresolvedConflicts: false)
    }

    @Test func downloadCountsThePlaceholdersItConcerns() throws {
        let before = [Self.item("a.mkv"), Self.item("b.mkv", size: 3_000_000), Self.item("c.txt", status: "current")]
        let targets = try #require(CallProgress.DownloadTargets(before))
        #expect(targets.sizes.count == 2)  // c.txt is local already
        #expect(targets.sample(before) == ProgressSample(done: 0, total: 4_000_000, label: "downloading 0 of 2 files (0 B of 4 MB)"))
        let midway = [Self.item("a.mkv", status: "current"), Self.item("b.mkv", size: 3_000_000, downloading: 50)]
        #expect(targets.sample(midway) == ProgressSample(done: 2_500_000, total: 4_000_000, label: "downloading 1 of 2 files (2.5 MB of 4 MB)"))
        // One gone meanwhile (deleted elsewhere) is not waited for.
        #expect(targets.sample([Self.item("a.mkv", status: "current")]).done == 4_000_000)
    }

    @Test func downloadOfEmptyFilesCountsFiles() throws {
        let targets = try #require(CallProgress.DownloadTargets([Self.item("a", size: 0), Self.item("b", size: 0)]))
        #expect(targets.sample([Self.item("a", size: 0, status: "current"), Self.item("b", size: 0)])
            == ProgressSample(done: 1, total: 2, label: "downloading 1 of 2 files"))
    }

    @Test func downloadWithoutAKnownSetHasNoBar() {
        // A named directory's listing is one level deep: what is below it is not known.
        #expect(CallProgress.DownloadTargets([Self.item("a.mkv"), Self.item("Season 1", kind: "Folder", size: 0)]) == nil)
        // Nothing to download.
        #expect(CallProgress.DownloadTargets([Self.item("a.mkv", status: "current")]) == nil)
        #expect(CallProgress.DownloadTargets([]) == nil)
    }
}

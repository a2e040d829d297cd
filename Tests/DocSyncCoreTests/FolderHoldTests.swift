import DocSyncCore
import Testing

@Suite struct FolderHoldTests {
    typealias Root = FolderHold.Root

    /// (root now, recorded marker, indexed items, verdict); a new marker would be "new".
    static let cases: [(Root, String?, Int, FolderHold.Verdict)] = [
        // Nothing at stake.
        (.missing, nil, 0, .waitForRoot),
        (.missing, "a", 0, .waitForRoot),
        (.notADirectory, "a", 0, .waitForRoot),
        (.directory(marker: nil, isEmpty: true), nil, 0, .writeMarker(instance: "new")),
        (.directory(marker: nil, isEmpty: false), nil, 0, .writeMarker(instance: "new")),
        (.directory(marker: nil, isEmpty: true), "a", 0, .writeMarker(instance: "a")),
        (.directory(marker: "b", isEmpty: false), nil, 0, .adoptMarker(instance: "b")),
        (.directory(marker: "b", isEmpty: false), "a", 0, .adoptMarker(instance: "b")),
        (.directory(marker: "a", isEmpty: true), "a", 0, .proceed),
        // Items at stake.
        (.directory(marker: "a", isEmpty: false), "a", 10, .proceed),
        (.directory(marker: "a", isEmpty: true), "a", 10, .proceed),  // emptied by its user: deletions, under the brake
        (.missing, "a", 10, .held(.rootMissing)),
        (.missing, nil, 10, .held(.rootMissing)),
        (.notADirectory, "a", 1, .held(.rootNotADirectory)),
        (.directory(marker: nil, isEmpty: true), "a", 10, .held(.markerMissing)),
        (.directory(marker: nil, isEmpty: false), "a", 10, .held(.markerMissing)),
        (.directory(marker: "b", isEmpty: false), "a", 10, .held(.markerForeign)),
        (.directory(marker: "b", isEmpty: true), "a", 10, .held(.markerForeign)),
        // An index from before markers.
        (.directory(marker: nil, isEmpty: false), nil, 10, .writeMarker(instance: "new")),
        (.directory(marker: nil, isEmpty: true), nil, 10, .held(.markerMissing)),
        (.directory(marker: "b", isEmpty: false), nil, 10, .adoptMarker(instance: "b")),
    ]

    @Test(arguments: cases)
    func verdict(_ root: Root, _ recorded: String?, _ items: Int, _ expected: FolderHold.Verdict) {
        #expect(FolderHold.verdict(root: root, recorded: recorded, indexedItems: items, newInstance: "new") == expected)
    }

    @Test func everyHeldReasonSaysWhatIsAtStakeAndWhatToDo() {
        for reason in [FolderHold.Reason.rootMissing, .rootNotADirectory, .markerMissing, .markerForeign] {
            let text = reason.explanation(root: "/home/a/Documents", items: 200)
            #expect(text.contains("/home/a/Documents"))
            #expect(text.contains("200 synced items"))
            #expect(text.contains("nothing is sent or written"))
        }
    }
}

@testable import DocSyncDaemon
import Testing

/// Which start is a switch between `mirror` and `on-demand`, and when it is refused (SPEC §14).
struct FolderModeSwitchTests {
    @Test(arguments: [
        // onDemand, content directory there, never synced → switch
        (true, false, false, FolderModeSwitch.toOnDemand as FolderModeSwitch?),
        (true, false, true, nil),  // a new on-demand folder: nothing to switch
        (true, true, false, nil),  // on demand already
        (true, true, true, nil),
        (false, true, false, .toMirror),  // the content directory of an on-demand past
        (false, true, true, .toMirror),
        (false, false, false, nil),  // a mirror all along
        (false, false, true, nil),
    ])
    func detect(onDemand: Bool, contentExists: Bool, neverSynced: Bool, expected: FolderModeSwitch?) {
        #expect(FolderModeSwitch.detect(onDemand: onDemand, contentExists: contentExists, neverSynced: neverSynced) == expected)
    }

    @Test func openFilesRefuseEitherWayNamingTheProcesses() {
        for change in [FolderModeSwitch.toOnDemand, .toMirror] {
            let refusal = FolderModeSwitch.refusal(change, root: "/home/ada/Docs", open: [(412, "vim"), (977, "soffice.bin")],
                                                   bytesNeeded: 0, bytesFree: 1 << 40, spaceAt: "its file system")
            #expect(refusal?.contains("while files in it are open (processes 412 (vim), 977 (soffice.bin)); close them, then start docsyncd again") == true, "\(refusal ?? "nil")")
        }
    }

    @Test func aLongListOfProcessesIsCut() {
        let open = (1 ... 8).map { (Int32($0), "p\($0)") }
        let refusal = FolderModeSwitch.refusal(.toOnDemand, root: "/d", open: open, bytesNeeded: 0, bytesFree: nil, spaceAt: "x") ?? ""
        #expect(refusal.contains("5 (p5), …)") && !refusal.contains("6 (p6)"))
    }

    @Test(arguments: [
        (Int64(0), Int64?(0), false), (100, 100, false), (101, 100, true), (5_000_000_000, 1_000_000_000, true), (1, nil, false),
    ])
    func spaceShortRefuses(needed: Int64, free: Int64?, refused: Bool) {
        let refusal = FolderModeSwitch.refusal(.toMirror, root: "/home/ada/Docs", open: [], bytesNeeded: needed, bytesFree: free, spaceAt: "its file system")
        #expect((refusal != nil) == refused)
        if let refusal { #expect(refusal.contains("downloading what is not local needs") && refusal.contains("free some space")) }
    }

    @Test func aSwitchThatCanHappenIsNotRefused() {
        #expect(FolderModeSwitch.refusal(.toOnDemand, root: "/d", open: [], bytesNeeded: 10, bytesFree: 10, spaceAt: "x") == nil)
    }
}

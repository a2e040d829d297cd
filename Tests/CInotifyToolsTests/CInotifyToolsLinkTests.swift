import CInotifyTools
import Foundation
import Testing

/// The system-library target links libinotifytools and exposes what the watcher needs.
@Suite struct CInotifyToolsLinkTests {
    @Test func compoundMasksMatchTheirParts() {
        #expect(docsync_IN_CLOSE == UInt32(IN_CLOSE_WRITE | IN_CLOSE_NOWRITE))
        #expect(docsync_IN_MOVE == UInt32(IN_MOVED_FROM | IN_MOVED_TO))
        #expect(docsync_IN_ALL_EVENTS & UInt32(IN_CREATE) != 0)
    }

    @Test func eventNamesTranslateBothWays() {
        // Pure string tables of the library: no inotify instance needed, so this
        // does not disturb the library's single global state.
        #expect(inotifytools_str_to_event("CREATE") == Int32(IN_CREATE))
        let name = inotifytools_event_to_str(Int32(IN_MOVED_TO)).map { String(cString: $0) }
        #expect(name == "MOVED_TO")
    }
}

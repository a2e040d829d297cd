import DocSyncCore
import DocSyncPlatform
import Testing

@Suite struct ServiceMemoryTests {
    /// glibc answers 0 to a parameter it does not know or a value out of its range (a mmap
    /// threshold over 32 MiB, say). What the settings do to an idle daemon is measured by
    /// `make bench` (d), which needs a process of its own.
    @Test func glibcTakesBothSettings() {
        #expect(ServiceMemory.keepIdleFootprintSmall())
    }
}

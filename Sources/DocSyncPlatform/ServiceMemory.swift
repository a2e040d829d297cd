/// How a long-running docsync process (the daemon, the server) has glibc's allocator hold memory.
public enum ServiceMemory {
    /// Fixes glibc's mmap and trim thresholds at 4 MiB. Left to itself, glibc raises both
    /// as it frees large blocks (the mmap threshold up to 32 MiB, the trim threshold to
    /// twice that), so large blocks come from its arenas and freed ones stay there. A
    /// daemon that had synced then kept such memory while idle: over 100,000 files, 75 MB
    /// resident instead of 52 MB, 17 MB of it in one arena that `malloc_info(3)` showed
    /// almost entirely free and that `malloc_trim(3)` did not give back. With the
    /// thresholds fixed, a block of 4 MiB or more that an arena has no room for gets a
    /// mapping of its own, unmapped when freed, and an arena gives back a free top once
    /// it reaches 4 MiB. The large buffers a sync reuses come from pools (`BufferPool`),
    /// not from each allocation; sync speed measured the same. Call it once, at start.
    /// Returns false if glibc refused a setting.
    @discardableResult
    public static func keepIdleFootprintSmall() -> Bool {
        mallopt(mmapThreshold, 4 << 20) == 1 && mallopt(trimThreshold, 4 << 20) == 1
    }

    /// Gives the allocator's free memory back to the system (glibc's `malloc_trim(3)`): the
    /// free top of the heap and the free pages inside its arenas. For a long-running process
    /// going idle after a large piece of work. Returns whether any memory was released.
    @discardableResult
    public static func releaseFreedMemory() -> Bool {
        malloc_trim(0) == 1
    }

    /// `M_MMAP_THRESHOLD` and `M_TRIM_THRESHOLD` of `<malloc.h>`.
    private static let mmapThreshold: Int32 = -3, trimThreshold: Int32 = -1
}

/// glibc's `mallopt(3)`; Glibc's Swift module does not export it.
@_silgen_name("mallopt")
private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32

/// glibc's `malloc_trim(3)`; Glibc's Swift module does not export it.
@_silgen_name("malloc_trim")
private func malloc_trim(_ pad: Int) -> Int32

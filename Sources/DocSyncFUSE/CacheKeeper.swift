import DocSyncCore
import DocSyncEngine
import Foundation
import Glibc
import Logging

/// Keeps an on-demand folder's local content within `cache_max_size` (SPEC §14): when it
/// holds more, the parts of documents read so far go first, then the least recently used
/// documents that are not pinned, not open and whose content the server holds are evicted
/// (turned back into placeholders) until it fits. Nothing that is not uploaded is evicted.
public struct CacheKeeper: Sendable {
    let engine: FolderEngine
    let fileSystem: OnDemandFileSystem
    /// `cache_max_size`; nil: 10 GB or 10 % of the content directory's file system,
    /// whichever is smaller.
    let limit: Int64?
    let logger: Logger
    /// How often the cache is measured.
    let interval: Duration

    public init(engine: FolderEngine, fileSystem: OnDemandFileSystem, limit: Int64?, logger: Logger, interval: Duration = .seconds(5)) {
        self.engine = engine
        self.fileSystem = fileSystem
        self.limit = limit
        self.logger = logger
        self.interval = interval
    }

    /// Measures and trims every `interval` until cancelled.
    public func run() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            await trim()
        }
    }

    /// The limit in bytes.
    public var effectiveLimit: Int64 {
        if let limit { return limit }
        var status = statvfs()
        let whole = statvfs(fileSystem.backing, &status) == 0 ? Int64(status.f_blocks) * Int64(status.f_frsize) : 0
        return whole > 0 ? min(10_000_000_000, whole / 10) : 10_000_000_000
    }

    /// Brings the cache within the limit now; returns the paths evicted.
    @discardableResult
    public func trim() async -> [RelativePath] {
        let limit = effectiveLimit
        var used = engine.localContentSize() + fileSystem.partial.allocatedBytes
        guard used > limit else { return [] }
        used -= fileSystem.partial.dropAll(except: fileSystem.handles.openPartialFiles)
        guard used > limit else { return [] }
        let open = fileSystem.openPaths
        let candidates = engine.evictableDocuments()
            .filter { !open.contains($0.path.string) }
            .sorted { first, second in
                let a = fileSystem.lastAccess(of: first.path.string), b = fileSystem.lastAccess(of: second.path.string)
                switch (a, b) {
                case let (a?, b?): return a < b
                case (nil, _?): return true  // never opened through this mount: older than any that was
                case (_?, nil): return false
                case (nil, nil): return first.modified < second.modified
                }
            }
        var chosen: [RelativePath] = []
        for candidate in candidates where used > limit {
            chosen.append(candidate.path)
            used -= candidate.size
        }
        guard !chosen.isEmpty else {
            logger.warning("the on-demand cache is over its limit and nothing in it can be evicted (pinned, open or not uploaded)",
                           metadata: ["limit": "\(limit)", "used": "\(used)"])
            return []
        }
        let outcomes = await engine.perform(.evict(chosen))
        let evicted = outcomes.filter(\.done).compactMap { try? RelativePath(validating: $0.path) }
        logger.info("evicted the least recently used files to keep the cache within its limit",
                    metadata: ["limit": "\(limit)", "evicted": "\(evicted.count)"])
        return evicted
    }
}

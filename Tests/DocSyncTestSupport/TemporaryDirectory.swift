import Foundation

/// A fresh directory under the system's temporary directory, removed with everything in it
/// when the last reference goes away.
///
/// An engine whose task was just cancelled may still be finishing a write inside it then
/// (a file put in place, a database's log reopened): removal is tried again, for a second
/// at most, until nothing is left.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    /// With `preferMemory`, under `/dev/shm` when this machine has it (a tmpfs: databases
    /// there cost no disk flushes), else under the temporary directory.
    public init(_ label: String = "docsync-test", preferMemory: Bool = false) throws {
        let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        let parent = preferMemory && FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
        url = parent.appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public var path: String { url.path }

    deinit {
        let deadline = ContinuousClock.now + .seconds(1)
        while true {
            try? FileManager.default.removeItem(at: url)
            guard FileManager.default.fileExists(atPath: url.path), ContinuousClock.now < deadline else { return }
            usleep(10_000)
        }
    }
}

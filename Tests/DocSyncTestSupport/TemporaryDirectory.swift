import Foundation

/// A fresh directory under the system's temporary directory, removed with everything in it
/// when the last reference goes away.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init(_ label: String = "docsync-test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public var path: String { url.path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

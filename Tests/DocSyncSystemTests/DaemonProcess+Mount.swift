import DocSyncTestSupport
import Foundation
import Glibc
import Testing

/// An on-demand device's FUSE mount (SPEC §14) as the tests see it: the content directory
/// the engine syncs, the partial cache, and whether the folder's path is mounted.
extension DaemonProcess {
    /// The folder's state: `STATE/folders/Docs` (the one-folder form names the folder after its path).
    var folderStateDirectory: URL { stateDirectory.appendingPathComponent("folders").appendingPathComponent("Docs") }

    /// Where an on-demand folder's engine keeps what is local and a placeholder for the rest.
    var contentDirectory: URL { folderStateDirectory.appendingPathComponent("content") }

    /// Where parts of documents read through the mount are kept (sparse files).
    var partialDirectory: URL { folderStateDirectory.appendingPathComponent("partial") }

    /// The file system types mounted at the folder's path, oldest first, from the mount table.
    var folderMountTypes: [String] { mountTypes(at: folder.path) }

    /// Whether the folder's path is a docsync FUSE mount now.
    var isMounted: Bool { folderMountTypes.contains("fuse.docsync") }

    /// Waits until the folder's path is a docsync mount; false when it is not within `timeout`.
    func waitMounted(timeout: Duration = .seconds(30)) async -> Bool {
        await eventually(timeout: timeout, pollEvery: .milliseconds(20)) { self.isMounted }
    }

    /// Detaches whatever the mount table still lists at the folder's path (`umount -l`), so
    /// that nothing is left behind by a test; returns whether there was anything.
    @discardableResult
    func unmountLeftover() async -> Bool {
        guard !folderMountTypes.isEmpty else { return false }
        for _ in folderMountTypes {
            _ = try? await runProcess(URL(fileURLWithPath: "/usr/bin/umount"), ["-l", folder.path])
        }
        return true
    }
}

/// The types of the mounts at `path` in `/proc/self/mountinfo` (the mount point is field 5,
/// with space, tab, newline and backslash written as a backslash and three octal digits;
/// the type follows the "-" separator).
func mountTypes(at path: String) -> [String] {
    guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return [] }
    var types: [String] = []
    for line in table.split(separator: "\n") {
        let fields = line.split(separator: " ")
        guard fields.count > 4, decodeMountField(fields[4]) == path,
              let separator = fields.firstIndex(of: "-"), separator + 1 < fields.count else { continue }
        types.append(String(fields[separator + 1]))
    }
    return types
}

private func decodeMountField(_ field: Substring) -> String {
    var bytes: [UInt8] = []
    let utf8 = Array(field.utf8)
    var index = 0
    while index < utf8.count {
        if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count,
           let value = UInt8(String(decoding: utf8[index + 1 ... index + 3], as: UTF8.self), radix: 8) {
            bytes.append(value)
            index += 4
        } else {
            bytes.append(utf8[index])
            index += 1
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

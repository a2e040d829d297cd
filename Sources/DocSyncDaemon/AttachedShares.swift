import DocSyncCore
import Foundation

/// The shares `docs-status accept` attached while the daemon ran (SPEC §11), kept in the
/// state directory (`attached-shares.json`) so they are attached again at the next start,
/// beside the `[[folders]]` of the configuration (which win: a share or a path the
/// configuration names is not attached twice).
struct AttachedShares: Codable, Sendable, Equatable {
    struct Entry: Codable, Sendable, Equatable {
        var share: ShareName
        /// The folder's absolute path.
        var path: String
    }

    var entries: [Entry] = []

    static func file(in stateDirectory: URL) -> URL { stateDirectory.appendingPathComponent("attached-shares.json") }

    /// What the file holds; empty when there is none. A file that cannot be read is an
    /// error naming it: silently dropping attachments would leave folders unsynced.
    static func load(from stateDirectory: URL) throws -> AttachedShares {
        let url = file(in: stateDirectory)
        guard FileManager.default.fileExists(atPath: url.path) else { return AttachedShares() }
        do {
            return try JSONDecoder().decode(AttachedShares.self, from: Data(contentsOf: url))
        } catch {
            throw DaemonError("cannot read \(url.path) (the shares attached with docs-status accept): \(error); fix or remove it")
        }
    }

    /// Writes the file whole (a temporary file renamed over it).
    func save(in stateDirectory: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: Self.file(in: stateDirectory), options: .atomic)
    }

    /// The folders to attach besides `configured`: each entry whose share and path no
    /// configured folder names.
    func folders(besides configured: [FolderConfiguration]) -> [FolderConfiguration] {
        entries.compactMap { entry in
            let path = URL(fileURLWithPath: entry.path)
            guard !configured.contains(where: { $0.share == entry.share || $0.path.path.bytesEqual(entry.path) }) else { return nil }
            return FolderConfiguration.attaching(entry.share, at: path)
        }
    }
}

extension FolderConfiguration {
    /// A folder attached to `share` at `path`, with the default settings.
    static func attaching(_ share: ShareName, at path: URL) -> FolderConfiguration {
        var folder = FolderConfiguration(id: share.description, path: path)
        folder.share = share
        return folder
    }
}

import DocSyncCore
import Foundation

/// A folder that syncs, on its way into its encrypted zone (SPEC §13), as this device keeps
/// it in the folder's state directory (`moving`) so that a move cut short (the daemon
/// stopped, the server away) goes on where it was:
/// 1. written when the move begins, before the folder stops syncing its plain zone (it
///    then starts in its encrypted zone, uploading what it holds, sealed);
/// 2. `deletedCopied` once it has settled there and the plain zone's Recently Deleted is
///    re-sealed into the encrypted zone;
/// 3. removed once the server has made the plain zone a redirect (`moveZone`: every
///    plaintext record and chunk purged).
struct FolderMove: Codable, Equatable, Sendable {
    /// The plain zone the folder synced with.
    var from: String
    var deletedCopied = false

    static let fileName = "moving"

    /// The move under way for the folder whose state directory is `state`, `nil` when none.
    static func load(in state: URL) -> FolderMove? {
        guard let data = try? Data(contentsOf: state.appendingPathComponent(fileName)) else { return nil }
        return try? JSONDecoder().decode(FolderMove.self, from: data)
    }

    /// Stores the move in `state` (replacing the file whole).
    func store(in state: URL) throws {
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try JSONEncoder().encode(self).write(to: state.appendingPathComponent(Self.fileName), options: .atomic)
    }

    /// The move is over: forgets it.
    static func finish(in state: URL) {
        try? FileManager.default.removeItem(at: state.appendingPathComponent(fileName))
    }
}

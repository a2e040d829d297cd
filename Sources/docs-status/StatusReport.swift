import DocSyncCore
import Foundation

/// The human overview: account lines, one table row per folder, a progress line per
/// direction of each folder with transfers pending, then what needs a person.
enum StatusReport {
    /// `inFlight`: the items being uploaded or downloaded right now, for the progress bars;
    /// `nil` when they are not known (the progress lines then have no bar).
    static func render(_ status: DaemonStatus, inFlight: [ItemStatus]? = nil) -> String {
        var lines = [
            "device:  \(status.device)" + (status.deviceKeyFingerprint.map { "   (key fingerprint \($0))" } ?? ""),
            "backend: \(status.backend)",
            "account: \(status.account)",
        ]
        if let web = status.web {
            lines.append("page:    " + (web.address.map { "\($0)   (docs-status web signs a browser in)" } ?? web.message ?? "off"))
        }
        if let encryption = status.encryption, encryption.state != .off {
            lines.append("encryption: \(encryption.state.rawValue)" + (encryption.approvalCode.map { "   (approval code \($0))" } ?? ""))
            if encryption.state != .on, let message = encryption.message { lines.append("  " + message) }
            for folder in encryption.waitingFolders ?? [] { lines.append("  waiting: \(folder)") }
            for folder in encryption.plainFolders ?? [] { lines.append("  not encrypted: \(folder)") }
        }
        lines.append("")
        if status.folders.isEmpty {
            lines.append("no folders")
        } else {
            let rows = status.folders.map { folder -> [Cell] in
                [
                    Cell(folder.id), state(folder.state), Cell("\(folder.items)"),
                    Cell(pending(folder.pendingUploads, folder.pendingUploadBytes)),
                    Cell(pending(folder.pendingDownloads, folder.pendingDownloadBytes)),
                    Cell("\(folder.conflicts)", color: folder.conflicts > 0 ? .yellow : nil),
                    Cell("\(folder.problems.count)", color: folder.problems.isEmpty ? nil : .red),
                    Cell(folder.lastSync.map(Format.dateTime) ?? "never"),
                ]
            }
            lines += Table.render(
                header: ["FOLDER", "STATE", "ITEMS", "UPLOADS", "DOWNLOADS", "CONFLICTS", "PROBLEMS", "LAST SYNC"],
                rows: rows, rightAligned: [2, 5, 6]
            )
        }
        let progress = progressLines(status.folders, inFlight: inFlight)
        let notes = status.folders.flatMap { folder -> [String] in
            var notes = folder.message.map { ["\(folder.id): \($0)"] } ?? []
            if let sharing = folder.sharingNote { notes.append("\(folder.id): \(sharing)") }
            if let held = folder.held, held.message != folder.message {
                notes.append(Color.yellow.paint("\(folder.id): since \(Format.dateTime(held.since)): \(held.message)"))
            }
            return notes
        }
        let problems = status.folders.flatMap { folder in
            folder.problems.map { Color.red.paint("\(Format.join(folder.path, $0.path)): \($0.message)") }
        }
        for block in [progress, notes, problems] where !block.isEmpty {
            lines.append("")
            lines += block
        }
        return lines.joined(separator: "\n")
    }

    /// True when some folder has uploads or downloads pending (the overview then shows progress).
    static func hasTransfers(_ status: DaemonStatus) -> Bool {
        status.folders.contains { $0.pendingUploads > 0 || $0.pendingDownloads > 0 }
    }

    /// The predicate that finds the items in flight, for the progress bars.
    static let inFlightPredicate = "isUploading == YES OR isDownloading == YES"

    /// "Documents  ↑ [#######-------------] 35%  3 items, 12 MB left": the share of the
    /// pending bytes already sent (or received) by the transfers in flight, and what is left.
    static func progressLines(_ folders: [FolderStatus], inFlight: [ItemStatus]?) -> [String] {
        var rows: [(folder: String, line: String)] = []
        for folder in folders {
            let items = inFlight?.filter { $0.folder == folder.id }
            if folder.pendingUploads > 0 {
                let moving = items.map { $0.filter(\.isUploading).map { ($0.size, $0.percentUploaded) } }
                rows.append((folder.id, line("↑", count: folder.pendingUploads, bytes: folder.pendingUploadBytes, moving: moving)))
            }
            if folder.pendingDownloads > 0 {
                let moving = items.map { $0.filter(\.isDownloading).map { ($0.size, $0.percentDownloaded) } }
                rows.append((folder.id, line("↓", count: folder.pendingDownloads, bytes: folder.pendingDownloadBytes, moving: moving)))
            }
        }
        let width = rows.map(\.folder.count).max() ?? 0
        return rows.map { $0.folder + String(repeating: " ", count: width - $0.folder.count) + "  " + $0.line }
    }

    /// One direction's progress: `moving` holds the size and percent done of each transfer
    /// in flight (`nil`: unknown, no bar).
    private static func line(_ arrow: String, count: Int, bytes: Int64, moving: [(Int64, Double)]?) -> String {
        let done = moving?.reduce(0.0) { $0 + Double($1.0) * min(100, max(0, $1.1)) / 100 } ?? 0
        let total = max(Double(bytes), Double(moving?.reduce(Int64(0)) { $0 + $1.0 } ?? 0))
        let left = "\(Format.count(count, "item")), \(Format.bytes(Int64(max(0, Double(bytes) - done).rounded()))) left"
        guard moving != nil else { return Color.cyan.paint(arrow) + " " + left }
        let percent = total > 0 ? done / total * 100 : 0
        return Color.cyan.paint("\(arrow) \(Format.bar(percent)) \(Format.percent(percent))") + "  " + left
    }

    /// "0", "3 (1.2 MB)".
    private static func pending(_ count: Int, _ bytes: Int64) -> String {
        count == 0 && bytes == 0 ? "0" : "\(count) (\(Format.bytes(bytes)))"
    }

    private static func state(_ state: FolderState) -> Cell {
        switch state {
        case .idle: Cell(state.rawValue, color: .green)
        case .scanning, .syncing: Cell(state.rawValue, color: .cyan)
        case .offline: Cell(state.rawValue, color: .yellow)
        case .error, .held, .cannotDecrypt: Cell(state.rawValue, color: .red)
        case .deletionsHeld, .detached, .awaitingApproval, .paused: Cell(state.rawValue, color: .yellow)
        }
    }
}

import DocSyncCore
import Foundation

/// The human overview: account lines, one table row per folder, then what needs a person.
enum StatusReport {
    static func render(_ status: DaemonStatus) -> String {
        var lines = [
            "device:  \(status.device)",
            "backend: \(status.backend)",
            "account: \(status.account)",
            "",
        ]
        if status.folders.isEmpty {
            lines.append("no folders")
        } else {
            var table = [["FOLDER", "STATE", "ITEMS", "UPLOADS", "DOWNLOADS", "CONFLICTS", "PROBLEMS", "LAST SYNC"]]
            for folder in status.folders {
                table.append([
                    folder.id, folder.state.rawValue, "\(folder.items)",
                    pending(folder.pendingUploads, folder.pendingUploadBytes),
                    pending(folder.pendingDownloads, folder.pendingDownloadBytes),
                    "\(folder.conflicts)", "\(folder.problems.count)",
                    folder.lastSync.map(formatDate) ?? "never",
                ])
            }
            lines += align(table, rightAligned: [2, 5, 6])
        }
        let notes = status.folders.compactMap { folder in folder.message.map { "\(folder.id): \($0)" } }
        let problems = status.folders.flatMap { folder in
            folder.problems.map { "\(join(folder.path, $0.path)): \($0.message)" }
        }
        for block in [notes, problems] where !block.isEmpty {
            lines.append("")
            lines += block
        }
        return lines.joined(separator: "\n")
    }

    /// "0", "3 (1.2 MB)".
    private static func pending(_ count: Int, _ bytes: Int64) -> String {
        count == 0 && bytes == 0 ? "0" : "\(count) (\(formatBytes(bytes)))"
    }

    /// Decimal units, one decimal: "512 B", "1.2 MB".
    static func formatBytes(_ bytes: Int64) -> String {
        for (name, size) in [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)] where Double(bytes) >= size {
            let value = (Double(bytes) / size * 10).rounded() / 10
            return value == value.rounded() ? "\(Int64(value)) \(name)" : "\(value) \(name)"
        }
        return "\(bytes) B"
    }

    private static func formatDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    private static func join(_ folder: String, _ path: String) -> String {
        folder.hasSuffix("/") ? folder + path : folder + "/" + path
    }

    /// Columns padded to their widest cell, two spaces apart.
    private static func align(_ rows: [[String]], rightAligned: Set<Int>) -> [String] {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? padding + cell : cell + padding
            }
            .joined(separator: "  ")
            .trimmingTrailingSpaces()
        }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}

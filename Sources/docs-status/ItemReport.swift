import DocSyncCore

/// How items (`ls`, `query`, `conflicts`) look to a person.
enum ItemReport {
    /// STATUS, SIZE, MODIFIED, PATH, one row per item; then one line per error an item has.
    static func render(_ items: [ItemStatus], empty: String) -> [String] {
        if items.isEmpty { return [empty] }
        let rows = items.map { item in
            [status(item), Cell(size(item)), Cell(Format.minute(item.modified)), Cell(path(item))]
        }
        var lines = Table.render(header: ["STATUS", "SIZE", "MODIFIED", "PATH"], rows: rows, rightAligned: [1])
        let errors = items.flatMap { item in
            [("upload", item.uploadingError), ("download", item.downloadingError)].compactMap { direction, message in
                message.map { "\(path(item)): \(direction): \($0)" }
            }
        }
        if !errors.isEmpty {
            lines.append("")
            lines += errors.map { Color.red.paint($0) }
        }
        return lines
    }

    /// `folder/path`, with a trailing `/` for a folder: "Documents/Reports/".
    static func path(_ item: ItemStatus) -> String {
        let joined = Format.join(item.folder, item.path)
        return item.kind == "Folder" && !joined.hasSuffix("/") ? joined + "/" : joined
    }

    /// The item's size, "-" for a folder.
    static func size(_ item: ItemStatus) -> String {
        item.kind == "Folder" ? "-" : Format.bytes(item.size)
    }

    /// A symbol and a word for the item's state, the most pressing first: "! error",
    /// "⚠ conflict", "↑ 42%", "↓ 17%", "☁ not downloaded", "↑ pending", "↓ pending", "✓ current".
    static func status(_ item: ItemStatus) -> Cell {
        if item.uploadingError != nil || item.downloadingError != nil { return Cell("! error", color: .red) }
        if item.hasUnresolvedConflicts { return Cell("⚠ conflict", color: .yellow) }
        if item.isUploading { return Cell("↑ \(Format.percent(item.percentUploaded))", color: .cyan) }
        if item.isDownloading { return Cell("↓ \(Format.percent(item.percentDownloaded))", color: .cyan) }
        if item.downloadingStatus == "notDownloaded" { return Cell("☁ not downloaded", color: .blue) }
        if !item.isUploaded { return Cell("↑ pending", color: .cyan) }
        if item.downloadingStatus != "current" { return Cell("↓ pending", color: .cyan) }
        return Cell("✓ current", color: .green)
    }

    /// What changed between two states of one item, for a live query's `~` line:
    /// "uploading 42%", "uploaded 100%", "edited, 3 MB", "upload error: …", "conflict".
    static func change(from old: ItemStatus?, to new: ItemStatus) -> String {
        guard let old else { return status(new).text }
        var parts: [String] = []
        if old.kind != new.kind { parts.append("now a \(new.kind.lowercased())") }
        if old.size != new.size {
            parts.append("edited, \(size(new))")
        } else if old.modified != new.modified {
            parts.append("edited")
        }
        if new.isUploading {
            if !old.isUploading || old.percentUploaded != new.percentUploaded {
                parts.append("uploading \(Format.percent(new.percentUploaded))")
            }
        } else if new.isUploaded && (old.isUploading || !old.isUploaded) {
            parts.append("uploaded 100%")
        } else if !new.isUploaded && (old.isUploaded || old.isUploading) {
            parts.append("upload pending")
        }
        if new.isDownloading {
            if !old.isDownloading || old.percentDownloaded != new.percentDownloaded {
                parts.append("downloading \(Format.percent(new.percentDownloaded))")
            }
        } else if old.isDownloading || old.downloadingStatus != new.downloadingStatus {
            switch new.downloadingStatus {
            case "current": parts.append("downloaded 100%")
            case "notDownloaded": parts.append(old.downloadingStatus == "notDownloaded" ? "download stopped" : "evicted")
            default: parts.append("newer version on the server")
            }
        }
        for (direction, before, after) in [("upload", old.uploadingError, new.uploadingError), ("download", old.downloadingError, new.downloadingError)]
        where before != after {
            parts.append(after.map { "\(direction) error: \($0)" } ?? "\(direction) error cleared")
        }
        if old.hasUnresolvedConflicts != new.hasUnresolvedConflicts {
            parts.append(new.hasUnresolvedConflicts ? "conflict" : "conflict resolved")
        }
        return parts.isEmpty ? status(new).text : parts.joined(separator: ", ")
    }
}

import DocSyncCore
import Foundation

/// Which desktop notifications to show (SPEC §15), decided from two snapshots of the folders'
/// statuses, the one before and the one now — pure, so every case is a line of a table.
///
/// What a caller may rely on:
/// - One notification per situation (`NotificationSituation`), not per file: a situation
///   covering many files is one notification with their count.
/// - A situation is notified when it starts (absent from `previous`, present in `current`);
///   one that persists is not notified again, one that ends and starts again is.
/// - A counted situation that grows (more conflicts, more deletions held, more files too
///   large) is notified again as an update (`replacesEarlier`); one that shrinks is not.
/// - The order is stable: the account's situations first, then by folder as `current`
///   lists them, then by kind.
public enum NotificationPlanner {
    public static func plan(previous: [FolderStatus], current: [FolderStatus]) -> [DesktopNotification] {
        var before: [String: NotificationSituation] = [:]
        for situation in situations(in: previous) { before[situation.key] = situation }
        return situations(in: current).compactMap { situation in
            guard let earlier = before[situation.key] else { return situation.notification() }
            return situation.count > earlier.count ? situation.notification(replacesEarlier: true) : nil
        }
    }

    /// What needs a person in `folders` now, one entry per situation.
    public static func situations(in folders: [FolderStatus]) -> [NotificationSituation] {
        account(folders) + folders.flatMap(situations(of:))
    }

    // MARK: the account's

    /// A refused sign-in and full storage stop every folder alike: one notification each.
    static func account(_ folders: [FolderStatus]) -> [NotificationSituation] {
        var found: [NotificationSituation] = []
        if folders.contains(where: { $0.message == FolderStatus.notAuthenticated }) {
            found.append(NotificationSituation(
                kind: .signInRefused, summary: "Sign-in refused: nothing syncs",
                body: sentence(FolderStatus.notAuthenticated, after: "account: not authenticated; "), urgency: .critical))
        }
        if let message = folders.lazy.compactMap(\.message).first(where: isStorageFull) {
            found.append(NotificationSituation(
                kind: .storageFull, summary: "Storage full: uploads paused",
                body: sentence(message, after: "account: "), urgency: .critical))
        }
        return found
    }

    static func isStorageFull(_ message: String) -> Bool {
        message.hasPrefix(FolderStatus.accountFullPrefix) || message == FolderStatus.storageFull(nil)
    }

    // MARK: one folder's

    static func situations(of folder: FolderStatus) -> [NotificationSituation] {
        let name = displayName(of: folder)
        var found: [NotificationSituation] = []
        if let held = folder.held {
            if held.isFolderHeld {
                found.append(NotificationSituation(
                    kind: .folderHeld, folder: folder.id, detail: held.reason,
                    summary: heldSummary(name, reason: held.reason), body: held.message, urgency: .critical))
            } else if held.items > 0 {
                found.append(NotificationSituation(
                    kind: .deletionsHeld, folder: folder.id, count: held.items,
                    summary: "\(counted(held.items, "deletion")) held in \(name)", body: held.message, urgency: .normal))
            }
        }
        if folder.conflicts > 0 {
            let copies = folder.conflicts == 1 ? "a copy" : "copies"
            found.append(NotificationSituation(
                kind: .conflictCopies, folder: folder.id, count: folder.conflicts,
                summary: "\(counted(folder.conflicts, "conflict")) kept as \(copies) in \(name)",
                body: "Both versions are kept side by side: see them with 'docs-status conflicts', settle them with 'docs-status resolve'.",
                urgency: .normal))
        }
        if let tooLarge = tooLarge(folder, name: name) { found.append(tooLarge) }
        return found
    }

    /// Files over `max_file_size` (their per-file problem ends in `FolderStatus.keptHereTooLarge`).
    static func tooLarge(_ folder: FolderStatus, name: String) -> NotificationSituation? {
        var seen = Set<String>()
        let problems = folder.problems.filter { $0.message.hasSuffix(FolderStatus.keptHereTooLarge) && seen.insert($0.path).inserted }
        guard let first = problems.first else { return nil }
        let summary: String, body: String
        if problems.count == 1 {
            summary = "\(lastComponent(first.path)) is too large to sync"
            body = "In \(name): \(first.message)."
        } else {
            let shown = problems.prefix(3).map { lastComponent($0.path) }.joined(separator: ", ")
            let more = problems.count > 3 ? " and \(problems.count - 3) more" : ""
            summary = "\(problems.count) files too large to sync in \(name)"
            body = "\(shown)\(more): over max_file_size, \(FolderStatus.keptHereTooLarge) ('docs-status errors' lists them)."
        }
        return NotificationSituation(kind: .fileTooLarge, folder: folder.id, count: problems.count,
                                     summary: summary, body: body, urgency: .normal)
    }

    static func heldSummary(_ name: String, reason: String) -> String {
        switch reason {
        case FolderHold.Reason.rootMissing.rawValue: "\(name) is held: the folder is missing"
        case FolderHold.Reason.rootNotADirectory.rawValue: "\(name) is held: it is not a folder"
        case FolderHold.Reason.markerMissing.rawValue, FolderHold.Reason.markerForeign.rawValue:
            "\(name) is held: it is not the folder that was synced"
        case HeldDeletions.shareUnavailable: "\(name) is held: the share does not answer"
        case HeldDeletions.awaitingApproval: "\(name) is held until this device is approved"
        case HeldDeletions.cannotDecrypt: "\(name) is held: it cannot be decrypted"
        default: "\(name) is held"
        }
    }

    // MARK: words

    /// The folder as a person knows it: its directory's name.
    static func displayName(of folder: FolderStatus) -> String {
        let name = lastComponent(folder.path)
        return name.isEmpty || name == "/" ? folder.id : name
    }

    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// "1 conflict", "3 conflicts".
    static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// `message` without `prefix`, as a sentence: a capital first letter and a full stop.
    static func sentence(_ message: String, after prefix: String) -> String {
        let text = message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst() + (text.hasSuffix(".") ? "" : ".")
    }
}

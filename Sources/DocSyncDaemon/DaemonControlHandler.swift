import DocSyncControl
import DocSyncCore
import DocSyncEngine
import DocSyncHTTP
import DocSyncStorage
import Foundation
import Logging

/// Answers `docs-status` calls from the folders' live state and index.
struct DaemonControlHandler: ControlHandler {
    let configuration: DaemonConfiguration
    /// The folders synced, those attached while running too.
    let folderSet: FolderSet
    /// The account's backend: what sharing calls go to.
    let backend: any StorageBackend
    let logger: Logger

    /// Every folder now.
    var folders: [FolderService] { folderSet.all }
    /// The key-value stores (SPEC §12).
    let keyValues: KeyValueService
    /// This device's key's fingerprint (`DeviceKeyFile`).
    let deviceKeyFingerprint: String
    /// The account's encryption (SPEC §13) and the folders it holds back.
    let accountKeys: AccountKeyService
    let folderGate: FolderGate
    /// The keys of shared encrypted folders.
    let shareKeys: ShareKeyService
    /// The daemon's events (SPEC §15).
    let events: EventLog
    /// The status page (SPEC §15): where it is, and its sign-ins.
    let page: WebPageState

    func handle(_ request: ControlRequest) async -> ControlResponse {
        await handle(request, emit: { _ in })
    }

    func handle(_ request: ControlRequest, emit: @escaping @Sendable (ControlResponse) async -> Void) async -> ControlResponse {
        do {
            switch request {
            case .status:
                return .status(status())
            case .wait(let timeoutSeconds):
                return await waitSettled(timeoutSeconds: timeoutSeconds, rounds: nil)
            case .sync(let timeoutSeconds):
                let rounds = folders.map(\.engine.completedRounds)
                for folder in folders { folder.engine.requestSync() }
                return await waitSettled(timeoutSeconds: timeoutSeconds, rounds: rounds)
            case .list(let paths):
                return .items(items: try list(paths))
            case .conflicts:
                return .items(items: try folders.flatMap { try $0.engine.conflictItems() })
            case .errors:
                return .problems(problems: folders.flatMap { $0.engine.problemEntries() })
            case .versions(let path):
                let (folder, relative) = try resolveItem(path)
                return .versions(versions: try folder.engine.versionEntries(at: relative))
            case .restore(let path, let version):
                let (folder, relative) = try resolveItem(path)
                return .actions(outcomes: await folder.engine.perform(.restore(relative, version: version)))
            case .deletions(let path, let choice):
                let chosen = try folders(named: path)
                if let choice {
                    var outcomes: [ActionOutcome] = []
                    for folder in chosen {
                        outcomes += await folder.engine.perform(choice == .confirm ? .confirmDeletions : .restoreHeld)
                    }
                    return .actions(outcomes: outcomes)
                }
                return .held(folders: chosen.map { folder in
                    let held = folder.engine.held
                    let (items, total) = held == nil ? ([], 0) : folder.engine.heldItems(limit: HeldFolder.listedItems)
                    return HeldFolder(folder: folder.engine.configuration.zone.name, path: folder.root.path, held: held, items: items, total: total)
                })
            case .deleted(let selection, let purge):
                var entries: [DeletedEntry] = [], outcomes: [ActionOutcome] = []
                for (folder, paths, predicate) in try recentlyDeleted(selection) {
                    let since = selection.since.map(Timestamp.init)
                    if purge {
                        outcomes += try await folder.engine.purgeDeleted(paths: paths, predicate: predicate, since: since)
                        folder.engine.requestSync()  // room may have freed for uploads held back
                    } else {
                        entries += try await folder.engine.deletedEntries(paths: paths, predicate: predicate, since: since)
                    }
                }
                return purge ? .actions(outcomes: outcomes) : .deleted(entries: entries)
            case .recover(let selection):
                let chosen = try recentlyDeleted(selection)
                // A named path that matches nothing is no such item: the call fails before
                // anything is recovered (a predicate or a time that matches nothing is not).
                var unrecoverable: [String] = []
                for (folder, paths, _) in chosen { unrecoverable += try await folder.engine.unrecoverable(paths: paths) }
                if !unrecoverable.isEmpty {
                    throw HandlerFailure(ControlResponse.FailureCode.notFound, unrecoverable.joined(separator: "; "))
                }
                var outcomes: [ActionOutcome] = []
                for (folder, paths, predicate) in chosen {
                    outcomes += try await folder.engine.recoverDeleted(paths: paths, predicate: predicate, since: selection.since.map(Timestamp.init))
                }
                return .actions(outcomes: outcomes)
            case .download(let paths, let predicate):
                return .actions(outcomes: try await act(paths: paths, predicate: predicate, EngineAction.download))
            case .evict(let paths, let predicate):
                return .actions(outcomes: try await act(paths: paths, predicate: predicate, EngineAction.evict))
            case .pin(let paths, let predicate):
                return .actions(outcomes: try await act(paths: paths, predicate: predicate, EngineAction.pin))
            case .unpin(let paths, let predicate):
                return .actions(outcomes: try await act(paths: paths, predicate: predicate, EngineAction.unpin))
            case .query(let predicate, let watch):
                return try await query(predicate, watch: watch, emit: emit)
            case .resolve(let paths, let all, let predicate, let keep):
                return .actions(outcomes: try await resolveConflicts(paths: paths, all: all, predicate: predicate, keep: keep))
            case .conflictLog(let since):
                return .conflictLog(entries: try conflictLog(since: since))
            case .share(let folder, let change):
                return try await share(folder, change: change)
            case .shares:
                return .shares(entries: shareKeys.annotatingOffered(try await sharingClient().shares()))
            case .declineShare(let share):
                let declined = try await sharingClient().answerShare(share, .decline)
                try await shareKeys.forgetOwner(of: share)
                return .shares(entries: [declined])
            case .leaveShare(let folder):
                let left = try await leave(folder)
                try await shareKeys.forgetOwner(of: left.share)
                return .shares(entries: [left])
            case .acceptShare(let share, let folder):
                return .shares(entries: [try await accept(share, at: folder)])
            case .keyValueGet, .keyValueSet, .keyValueRemove, .keyValueList, .keyValueWatch:
                return try await keyValue(request, emit: emit)
            case .pause(let folder, let seconds):
                for service in try pausable(folder) {
                    try service.engine.pause(until: seconds.map { Date(timeIntervalSinceNow: $0) })
                }
                return .status(status())
            case .limit(let upload, let download):
                if let upload { TransferRateLimit.upload.bytesPerSecond = upload }
                if let download { TransferRateLimit.download.bytesPerSecond = download }
                return .status(status())
            case .resume(let folder):
                for service in try pausable(folder) { service.engine.resume() }
                return .status(status())
            case .events(let since, let follow):
                return try await streamEvents(since: since, follow: follow, emit: emit)
            case .encryption(let action):
                return try await encryption(action)
            case .devices(let action):
                return try await devices(action)
            case .web:
                return .webSignIn(url: try page.signInURL())
            }
        } catch let failure as HandlerFailure {
            return .failure(code: failure.code, message: failure.message)
        } catch let failure as AccountKeyFailure {
            return .failure(code: failure.code, message: failure.message)
        } catch let error as SyncError {
            return .failure(code: error.code.rawValue, message: "the backend could not answer: \(error.message)")
        } catch {
            return .failure(code: "internalError", message: "docsyncd could not answer: \(error)")
        }
    }

    func status() -> DaemonStatus {
        status(of: folders.map { $0.status() })
    }

    /// The daemon's status around folder statuses already taken (the event recorder's).
    func status(of folders: [FolderStatus]) -> DaemonStatus {
        let refused = folders.contains { $0.message == FolderStatus.notAuthenticated }
        let full = folders.lazy.compactMap(\.message).first { $0.hasPrefix(FolderStatus.accountFullPrefix) }
        // "storage full (1.2 GB / 1 GB)": the part of the message before the first ';'.
        let account = refused ? "not authenticated"
            : full.map { String($0.dropFirst("account: ".count).prefix { $0 != ";" }) } ?? "signed in"
        var status = DaemonStatus(device: configuration.device, backend: configuration.backend.url.absoluteString,
                                  account: account, folders: folders, deviceKeyFingerprint: deviceKeyFingerprint)
        status.encryption = encryptionStatus()
        let (upload, download) = (TransferRateLimit.upload.bytesPerSecond, TransferRateLimit.download.bytesPerSecond)
        status.uploadLimit = upload == 0 ? nil : upload
        status.downloadLimit = download == 0 ? nil : download
        status.web = page.status
        return status
    }

    /// Answers once every folder is settled (twice in a row, 50 ms apart, so an event on its
    /// way is not missed) — and, with `rounds`, has finished a sync round since then.
    private func waitSettled(timeoutSeconds: Double, rounds: [Int]?) async -> ControlResponse {
        let deadline = ContinuousClock.now + .milliseconds(Int64(min(max(0, timeoutSeconds), 1e9) * 1000))
        var settledChecks = 0
        while ContinuousClock.now < deadline {
            let held = folders.compactMap { folder in folder.engine.held.map { (folder.engine.configuration.zone.name, $0.message) } }
                + folders.compactMap { folder in folder.mountHold.map { (folder.engine.configuration.zone.name, $0) } }
                + folders.filter(\.engine.isPaused).map { ($0.engine.configuration.zone.name, "paused; 'docs-status resume' syncs it again") }
            let encryption = encryptionStatus()
            if encryption.waitsForAPerson {
                return .failure(code: ControlResponse.FailureCode.held, message: encryption.message ?? encryption.state.rawValue)
            }
            if !held.isEmpty {
                // Held work waits for a person, not for time: say so at once — naming the other
                // folders not settled too, so one held or paused folder hides no other's state
                // (one in error, one still syncing).
                let named = Set(held.map(\.0))
                let others = folders.map { $0.status() }.filter { !named.contains($0.id) && !$0.isSettled }
                    .map { "\($0.id): \($0.state.rawValue)" + ($0.message.map { ", \($0)" } ?? "") }
                return .failure(code: ControlResponse.FailureCode.held, message: (held.map { "\($0.0): \($0.1)" } + others).joined(separator: "; "))
            }
            let advanced = rounds.map { rounds in zip(folders, rounds).allSatisfy { $0.engine.completedRounds > $1 } } ?? true
            if advanced && folders.allSatisfy(\.isSettled) && !encryption.holdsFolders {
                settledChecks += 1
                if settledChecks >= 2 { return rounds == nil ? .settled(status()) : .status(status()) }
            } else {
                settledChecks = 0
            }
            try? await Task.sleep(for: .milliseconds(50))
            if Task.isCancelled { break }
        }
        return .failure(code: ControlResponse.FailureCode.timeout, message: "not settled after \(timeoutSeconds) s: \(summary(status()))")
    }

    private func summary(_ status: DaemonStatus) -> String {
        status.folders.map { "\($0.id) \($0.state.rawValue), \($0.pendingUploads) to send, \($0.pendingDownloads) to apply" }
            .joined(separator: "; ")
    }

    // MARK: paths

    /// The folder holding `absolute` and the path inside it (`nil`: the folder itself). A
    /// placeholder's path (`.NAME.docsync`) stands for its item.
    func resolve(_ absolute: String) throws(HandlerFailure) -> (FolderService, RelativePath?) {
        let candidates = [URL(fileURLWithPath: absolute).standardizedFileURL.path,
                          URL(fileURLWithPath: absolute).resolvingSymlinksInPath().path]
        for candidate in candidates {
            for folder in folders {
                guard let found = folder.relativePath(ofAbsolute: candidate) else { continue }
                guard let relative = found else { return (folder, nil) }
                return (folder, relative)
            }
        }
        throw HandlerFailure(ControlResponse.FailureCode.notFound, "\(absolute) is not inside a synced folder")
    }

    /// The folder holding the absolute `path`, or named by its last component (a folder
    /// id); every folder when `path` is nil.
    private func folders(named path: String?) throws(HandlerFailure) -> [FolderService] {
        guard let path else { return folders }
        return [try folder(named: path)]
    }

    /// The folder holding the absolute `path`, attached to the share it names
    /// (`OWNER/FOLDER-ID`), or named by its last component (a folder id); `notFound` otherwise.
    func folder(named path: String) throws(HandlerFailure) -> FolderService {
        if let (folder, _) = try? resolve(path) { return folder }
        if let folder = folders.first(where: { $0.engine.configuration.share?.description == path }) { return folder }
        let name = URL(fileURLWithPath: path).lastPathComponent
        // By its id: an encrypted folder's zone is opaque, its id stays the configured one.
        if let folder = folders.first(where: { $0.folder.id.bytesEqual(name) || $0.engine.configuration.zone.name.bytesEqual(name) }) { return folder }
        throw HandlerFailure(ControlResponse.FailureCode.notFound, "\(path) is neither inside a synced folder nor a folder id")
    }

    /// The folders a Recently Deleted selection concerns, each with its paths relative to
    /// it (empty: the whole folder) and the parsed predicate.
    private func recentlyDeleted(_ selection: DeletedSelection) throws -> [(FolderService, [RelativePath], MetadataPredicate?)] {
        var predicate: MetadataPredicate?
        if let text = selection.predicate {
            do { predicate = try MetadataPredicate(parsing: text) } catch {
                throw HandlerFailure(ControlResponse.FailureCode.badPredicate, "\(error)")
            }
        }
        guard !selection.paths.isEmpty else { return folders.map { ($0, [], predicate) } }
        var chosen: [(FolderService, [RelativePath], MetadataPredicate?)] = []
        for path in selection.paths {
            let (folder, relative) = try resolve(path)
            if let index = chosen.firstIndex(where: { $0.0 === folder }) {
                if let relative, !chosen[index].1.isEmpty { chosen[index].1.append(relative) } else { chosen[index].1 = [] }
            } else {
                chosen.append((folder, relative.map { [$0] } ?? [], predicate))
            }
        }
        return chosen
    }

    /// Like `resolve`, for calls that need an item rather than a folder.
    private func resolveItem(_ absolute: String) throws(HandlerFailure) -> (FolderService, RelativePath) {
        let (folder, relative) = try resolve(absolute)
        guard let relative else { throw HandlerFailure(ControlResponse.FailureCode.notFound, "\(absolute) is a synced folder itself, not an item in it") }
        return (folder, relative)
    }

    private func list(_ paths: [String]) throws -> [ItemStatus] {
        guard !paths.isEmpty else { return try folders.flatMap { try $0.engine.children(of: nil) } }
        var items: [ItemStatus] = []
        for path in paths {
            let (folder, relative) = try resolve(path)
            guard let relative else {
                items += try folder.engine.children(of: nil)
                continue
            }
            guard let item = try folder.engine.item(at: relative) else {
                throw HandlerFailure(ControlResponse.FailureCode.notFound, "no synced item at \(path)")
            }
            items += item.kind == RecordType.folder.rawValue ? try folder.engine.children(of: relative) : [item]
        }
        return items
    }

    /// Fails with `notFound` (exit 4), before anything is done, when a path a person named is
    /// no item of its folder (never synced, or deleted): "no such item", as `recover` says.
    func requireItems(_ byFolder: [(FolderService, [RelativePath])]) throws(HandlerFailure) {
        var missing: [String] = []
        for (folder, relatives) in byFolder {
            for relative in relatives where ((try? folder.engine.item(at: relative)) ?? nil) == nil {
                missing.append("no such item: \(folder.root.path)/\(relative.string)")
            }
        }
        guard missing.isEmpty else { throw HandlerFailure(ControlResponse.FailureCode.notFound, missing.joined(separator: "; ")) }
    }

    /// Runs an action on the named items (grouped by folder) and on every item `predicate` matches.
    private func act(paths: [String], predicate: String?, _ make: ([RelativePath]) -> EngineAction) async throws -> [ActionOutcome] {
        var byFolder: [(FolderService, [RelativePath])] = []
        func add(_ folder: FolderService, _ path: RelativePath) {
            if let index = byFolder.firstIndex(where: { $0.0 === folder }) { byFolder[index].1.append(path) } else { byFolder.append((folder, [path])) }
        }
        for path in paths {
            let (folder, relative) = try resolveItem(path)
            add(folder, relative)
        }
        try requireItems(byFolder)
        if let predicate {
            for (folder, items) in try matches(predicate) {
                for item in items { add(folder, RelativePath(item.path)) }
            }
        }
        var outcomes: [ActionOutcome] = []
        for (folder, relatives) in byFolder { outcomes += await folder.engine.perform(make(relatives)) }
        return outcomes
    }
}

/// A control call that cannot be answered, with the failure code `docs-status` maps to an exit code.
struct HandlerFailure: Error {
    let code: String
    let message: String
    init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }
}

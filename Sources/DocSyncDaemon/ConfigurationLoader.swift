#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DocSyncControl
import DocSyncCore
import Foundation
import TOMLKit

/// Builds a `DaemonConfiguration` from docsync.toml (SPEC §10), defaults and flags.
///
/// What a caller may rely on:
/// - Every key of `config/docsync.example.toml` is read; any other key is an error.
/// - Every problem is a `ConfigurationError` naming the file, line and key (or the flag).
/// - Defaults: `device` = the host name; `state_dir` = `$XDG_STATE_HOME/docsync` or
///   `~/.local/state/docsync`; `socket` = `ControlSocketLocation.defaultPath`; a folder's
///   `mode` = mirror, `conflict` = keep-both, `max_file_size` = 50MB, `keep_versions_days` = 30,
///   `delete_brake_percent` = 50, `delete_brake_min` = 100, `merge` = the text formats of
///   `TextMergeRule.defaultPatterns`, `merge_max_size` = 1MB; `notifications` = true;
///   `upload_limit` = `download_limit` = 0 (none); `web_listen` = `127.0.0.1:8385`.
/// - Paths in the file must be absolute or start with `~`; paths given as flags may also be
///   relative to the current directory. Paths come back absolute and normalized.
/// - The environment, home directory, host name and current directory are inputs, so the
///   result depends on nothing else (the file system is touched only to read the file).
public struct ConfigurationLoader: Sendable {
    public var environment: [String: String]
    public var homeDirectory: String
    public var hostName: String
    public var currentDirectory: String

    /// The keys docsync.toml may hold, per table.
    public enum Keys {
        public static let topLevel = ["device", "state_dir", "socket", "notifications", "upload_limit", "download_limit", "web_listen", "backend", "folders"]
        public static let backend = ["url", "token_file", "ca_file"]
        public static let folder = ["id", "share", "path", "mode", "conflict", "max_file_size", "keep_versions_days",
                                    "delete_brake_percent", "delete_brake_min", "merge", "merge_max_size", "cache_max_size", "fetch_timeout"]
    }

    /// Defaults come from this process: its environment, `$HOME` (or the password database),
    /// the host name and the current directory.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        homeDirectory: String? = nil, hostName: String? = nil, currentDirectory: String? = nil
    ) {
        self.environment = environment
        let home = homeDirectory ?? environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        self.homeDirectory = PathNormalization.normalize(home)
        self.hostName = hostName ?? Self.systemHostName()
        self.currentDirectory = currentDirectory ?? FileManager.default.currentDirectoryPath
    }

    public var paths: XDGPaths { XDGPaths(environment: environment, homeDirectory: homeDirectory) }

    /// `docsyncd`'s rule: with `configurationFile` (`--config`), that file; else with
    /// `overrides.folder` (`--folder`), the flags alone; else the file at
    /// `paths.configurationFile`, which must exist. Flags override the file either way.
    public func load(configurationFile: String?, overrides: ConfigurationOverrides) throws(ConfigurationError) -> DaemonConfiguration {
        if let configurationFile {
            return try load(contentsOf: configurationFile, overrides: overrides)
        }
        if overrides.folder != nil {
            return try configuration(from: overrides)
        }
        let path = paths.configurationFile
        guard FileManager.default.fileExists(atPath: path) else {
            throw ConfigurationError(
                .noConfiguration,
                message: "no configuration file at \(path); create one (config/docsync.example.toml documents every key) or run docsyncd --folder PATH --backend URL"
            )
        }
        return try load(contentsOf: path, overrides: overrides)
    }

    /// Reads and parses the file at `path` (named in errors as given).
    public func load(contentsOf path: String, overrides: ConfigurationOverrides = ConfigurationOverrides()) throws(ConfigurationError) -> DaemonConfiguration {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
            throw ConfigurationError(.unreadableFile, source: path, message: "cannot read the configuration file: \(reason)")
        }
        return try parse(text, source: path, overrides: overrides)
    }

    /// Parses docsync.toml text; `source` names it in errors (`docsync.toml:7: …`).
    public func parse(_ text: String, source: String, overrides: ConfigurationOverrides = ConfigurationOverrides()) throws(ConfigurationError) -> DaemonConfiguration {
        let document = try ConfigurationDocument(text: text, source: source)
        let root = document.root
        let top = TOMLKeyPath.root
        try document.checkKeys(of: root, at: top, allowed: Keys.topLevel)

        var settings = Settings()
        if let device = try document.string(root, "device", at: top) {
            settings.device = try fileValue(document, top.appending("device")) { try checkedDevice(device) }
        }
        if let stateDirectory = try document.string(root, "state_dir", at: top) {
            settings.stateDirectory = try fileValue(document, top.appending("state_dir")) { try filePath(stateDirectory) }
        }
        if let socket = try document.string(root, "socket", at: top) {
            settings.socketPath = try fileValue(document, top.appending("socket")) { try checkedSocketPath(filePath(socket)) }
        }

        let backendPath = top.appending("backend")
        if let backend = try document.table(root, "backend", at: top) {
            try document.checkKeys(of: backend, at: backendPath, allowed: Keys.backend)
            if let url = try document.string(backend, "url", at: backendPath) {
                settings.backendURL = try fileValue(document, backendPath.appending("url")) { try backendURL(url) }
            }
            if let tokenFile = try document.string(backend, "token_file", at: backendPath) {
                settings.tokenFile = try fileValue(document, backendPath.appending("token_file")) { try filePath(tokenFile) }
            }
            if let caFile = try document.string(backend, "ca_file", at: backendPath) {
                settings.caFile = try fileValue(document, backendPath.appending("ca_file")) { try filePath(caFile) }
            }
        }
        settings.folders = try folders(in: document)

        if settings.backendURL == nil, overrides.backendURL == nil {
            throw document.error(
                .missingKey, at: backendPath.appending("url"),
                "required key is missing; write the backend's address (file:///path or http://host:port) or pass --backend URL"
            )
        }
        if settings.folders.isEmpty, overrides.folder == nil {
            throw document.error(.missingKey, at: top.appending("folders"), "no folder to sync; add a [[folders]] table with id and path, or pass --folder PATH")
        }
        var configuration = try finish(settings, overrides: overrides)
        if let notifications = document.value(root, "notifications") {
            guard notifications.type == .bool, let enabled = notifications.bool else {
                throw document.typeError(notifications, expected: "true or false", at: top.appending("notifications"))
            }
            configuration.notifications = enabled
        }
        if overrides.webListen == nil, let listen = document.value(root, "web_listen") {
            guard listen.type == .string, let text = listen.string else {
                throw document.typeError(listen, expected: "a loopback address and port (\"127.0.0.1:8385\") or \"off\"", at: top.appending("web_listen"))
            }
            guard let parsed = WebListen(parsing: text) else {
                throw document.error(.invalidValue, at: top.appending("web_listen"), Self.notLoopback(text))
            }
            configuration.webListen = parsed
        }
        for (key, keyPath) in [("upload_limit", \DaemonConfiguration.uploadLimit), ("download_limit", \DaemonConfiguration.downloadLimit)] {
            guard let value = document.value(root, key) else { continue }
            configuration[keyPath: keyPath] = try rate(value, at: top.appending(key), in: document)
        }
        return configuration
    }

    /// The one-folder form without a file: `--folder PATH --backend URL` and optional flags.
    public func configuration(from overrides: ConfigurationOverrides) throws(ConfigurationError) -> DaemonConfiguration {
        guard overrides.folder != nil else {
            throw ConfigurationError(.missingKey, key: "--folder", message: "is required without a configuration file: docsyncd --folder PATH --backend URL")
        }
        guard overrides.backendURL != nil else {
            throw ConfigurationError(.missingKey, key: "--backend", message: "is required with --folder when there is no configuration file: docsyncd --folder PATH --backend URL")
        }
        return try finish(Settings(), overrides: overrides)
    }

    /// A valid zone name made from a folder's last path component: characters a zone name
    /// may not hold become `_`, leading dots are dropped, and an empty result is `folder`.
    public static func folderID(forPath path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        var id = String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            ZoneID.problem(with: "a" + String(scalar)) == nil ? scalar : "_"
        }))
        while id.hasPrefix(".") { id.removeFirst() }
        while id.utf8.count > 255 { id.removeLast() }
        return id.isEmpty || ZoneID.problem(with: id) != nil ? "folder" : id
    }

    // MARK: Folders

    private func folders(in document: ConfigurationDocument) throws(ConfigurationError) -> [FolderConfiguration] {
        let arrayPath = TOMLKeyPath.root.appending("folders")
        guard let value = document.value(document.root, "folders") else { return [] }
        guard let array = value.array else {
            throw document.typeError(value, expected: "an array of tables ([[folders]])", at: arrayPath)
        }
        var folders: [FolderConfiguration] = []
        for (index, element) in array.enumerated() {
            let path = arrayPath.appending(index: index)
            guard let table = element.table else { throw document.typeError(element, expected: "a table", at: path) }
            folders.append(try folder(table, at: path, in: document, after: folders))
        }
        return folders
    }

    private func folder(
        _ table: TOMLTable, at path: TOMLKeyPath, in document: ConfigurationDocument, after earlier: [FolderConfiguration]
    ) throws(ConfigurationError) -> FolderConfiguration {
        try document.checkKeys(of: table, at: path, allowed: Keys.folder)
        var share: ShareName?
        if let text = try document.string(table, "share", at: path) {
            do { share = try ShareName(parsing: text) } catch {
                throw document.error(.invalidValue, at: path.appending("share"), "\(quoted(text)): \(error.message)")
            }
        }
        let named = try document.string(table, "id", at: path)
        if share != nil, named != nil {
            throw document.error(.invalidValue, at: path.appending("id"), "a shared folder is named by its share; drop id, or share")
        }
        guard let id = share?.description ?? named else {
            throw document.error(.missingKey, at: path.appending("id"), "required key is missing; every [[folders]] table needs an id (the zone name), or a share (OWNER/ID)")
        }
        if share == nil, let problem = ZoneID.folderProblem(with: id) {
            throw document.error(.invalidValue, at: path.appending("id"), "\(quoted(id)) \(problem)")
        }
        if let index = earlier.firstIndex(where: { $0.id.bytesEqual(id) }) {
            throw document.error(.duplicateFolderID, at: path.appending("id"), "\(quoted(id)) is already the id of folders[\(index)]")
        }
        guard let folderPathText = try document.string(table, "path", at: path) else {
            throw document.error(.missingKey, at: path.appending("path"), "required key is missing; every [[folders]] table needs a path")
        }
        let folderPath = try fileValue(document, path.appending("path")) { try filePath(folderPathText) }
        if let (index, other) = earlier.enumerated().lazy.compactMap({ index, folder in
            Self.overlap(folderPath, folder.path.path).map { (index, $0) }
        }).first {
            throw document.error(.overlappingFolders, at: path.appending("path"), "\(folderPath) \(other) folders[\(index)].path; a folder can be synced only once")
        }

        var folder = FolderConfiguration(id: id, path: URL(filePath: folderPath, directoryHint: .isDirectory))
        folder.share = share
        if let mode = try document.string(table, "mode", at: path) {
            guard let value = FolderConfiguration.Mode(rawValue: mode) else {
                throw document.error(.invalidValue, at: path.appending("mode"), Self.notOneOf(mode, FolderConfiguration.Mode.allCases.map(\.rawValue)))
            }
            folder.mode = value
        }
        if let conflict = try document.string(table, "conflict", at: path) {
            guard let value = ConflictPolicy(rawValue: conflict) else {
                throw document.error(.invalidValue, at: path.appending("conflict"), Self.notOneOf(conflict, ConflictPolicy.allCases.map(\.rawValue)))
            }
            folder.conflictPolicy = value
        }
        if let size = document.value(table, "max_file_size") {
            folder.maxFileSize = try maxFileSize(size, at: path.appending("max_file_size"), in: document)
        }
        if let days = try document.integer(table, "keep_versions_days", at: path) {
            guard (0...36_500).contains(days) else {
                throw document.error(.invalidValue, at: path.appending("keep_versions_days"), "\(days) is out of range; use a number of days from 0 to 36500")
            }
            folder.keepVersionsDays = days
        }
        if let percent = try document.integer(table, "delete_brake_percent", at: path) {
            guard (0...100).contains(percent) else {
                throw document.error(.invalidValue, at: path.appending("delete_brake_percent"), "\(percent) is out of range; use a percentage from 0 (no brake) to 100")
            }
            folder.deleteBrake.percent = percent
        }
        if let minimum = try document.integer(table, "delete_brake_min", at: path) {
            guard minimum >= 0 else {
                throw document.error(.invalidValue, at: path.appending("delete_brake_min"), "\(minimum) is out of range; use a number of items, 0 or more")
            }
            folder.deleteBrake.minimum = minimum
        }
        if let patterns = document.value(table, "merge") {
            folder.mergePatterns = try mergePatterns(patterns, at: path.appending("merge"), in: document)
        }
        if let size = document.value(table, "merge_max_size") {
            folder.mergeMaxSize = try maxFileSize(size, at: path.appending("merge_max_size"), in: document)
        }
        if let size = document.value(table, "cache_max_size") {
            folder.cacheMaxSize = try maxFileSize(size, at: path.appending("cache_max_size"), in: document)
        }
        if let seconds = try document.integer(table, "fetch_timeout", at: path) {
            guard (1...3_600).contains(seconds) else {
                throw document.error(.invalidValue, at: path.appending("fetch_timeout"), "\(seconds) is out of range; use a number of seconds from 1 to 3600")
            }
            folder.fetchTimeoutSeconds = seconds
        }
        return folder
    }

    /// The `merge` array: globs, each valid (`[]` merges nothing).
    private func mergePatterns(_ value: any TOMLValueConvertible, at path: TOMLKeyPath, in document: ConfigurationDocument) throws(ConfigurationError) -> [String] {
        guard value.type == .array, let array = value.array else {
            throw document.typeError(value, expected: "an array of globs ([\"*.md\", \"*.txt\"])", at: path)
        }
        var patterns: [String] = []
        for element in array {
            guard let pattern = element.string else {
                throw document.typeError(element, expected: "a glob string such as \"*.md\"", at: path)
            }
            patterns.append(pattern)
        }
        do { _ = try TextMergeRule(patterns: patterns) } catch {
            throw document.error(.invalidValue, at: path, error.message)
        }
        return patterns
    }

    /// A bandwidth limit: bytes per second as a number or a size ("1MB" a second); 0 for none.
    private func rate(_ value: any TOMLValueConvertible, at path: TOMLKeyPath, in document: ConfigurationDocument) throws(ConfigurationError) -> Int64 {
        if value.type == .int, value.int == 0 { return 0 }
        return try maxFileSize(value, at: path, in: document)
    }

    private func maxFileSize(_ value: any TOMLValueConvertible, at path: TOMLKeyPath, in document: ConfigurationDocument) throws(ConfigurationError) -> Int64 {
        let bytes: Int64?
        let shown: String
        switch value.type {
        case .int:
            bytes = value.int.map(Int64.init)
            shown = value.int.map(String.init) ?? ""
        case .string:
            bytes = value.string.flatMap(ByteSize.parse)
            shown = quoted(value.string ?? "")
        default:
            throw document.typeError(value, expected: "a size (\"50MB\", \"512KiB\") or a number of bytes", at: path)
        }
        guard let bytes, bytes > 0 else {
            throw document.error(.invalidValue, at: path, "\(shown) is not a size; write a positive number of bytes or a number with a unit: \"50MB\", \"512KiB\" (units: \(ByteSize.units.map(\.name).joined(separator: ", ")))")
        }
        return bytes
    }

    /// How `path` and `other` overlap ("is", "is inside", "contains"), or `nil`. Paths are
    /// bytes (SPEC §4a): two folders whose names differ only in normalization are two.
    static func overlap(_ path: String, _ other: String) -> String? {
        if path.bytesEqual(other) { return "is also" }
        if path.hasBytePrefix(other == "/" ? "/" : other + "/") { return "is inside" }
        if other.hasBytePrefix(path == "/" ? "/" : path + "/") { return "contains" }
        return nil
    }

    private static func notOneOf(_ value: String, _ allowed: [String]) -> String {
        "\(quoted(value)) is not one of \(allowed.joined(separator: ", "))"
    }

    // MARK: Combining file, flags and defaults

    /// What the file said, validated; `nil` where it said nothing.
    private struct Settings {
        var device: String?
        var stateDirectory: String?
        var socketPath: String?
        var backendURL: URL?
        var tokenFile: String?
        var caFile: String?
        var folders: [FolderConfiguration] = []
    }

    private func finish(_ file: Settings, overrides: ConfigurationOverrides) throws(ConfigurationError) -> DaemonConfiguration {
        var settings = file
        if let device = overrides.device {
            settings.device = try flagValue("--device") { try checkedDevice(device) }
        }
        if let stateDirectory = overrides.stateDirectory {
            settings.stateDirectory = try flagValue("--state-dir") { try flagPath(stateDirectory) }
        }
        if let socket = overrides.socketPath {
            settings.socketPath = try flagValue("--socket") { try checkedSocketPath(flagPath(socket)) }
        }
        if let url = overrides.backendURL {
            settings.backendURL = try flagValue("--backend") { try backendURL(url) }
        }
        if let tokenFile = overrides.tokenFile {
            settings.tokenFile = try flagValue("--token-file") { try flagPath(tokenFile) }
        }
        if let caFile = overrides.caFile {
            settings.caFile = try flagValue("--ca-file") { try flagPath(caFile) }
        }
        if let folder = overrides.folder {
            let path = try flagValue("--folder") { try flagPath(folder) }
            var id = Self.folderID(forPath: path)
            if let given = overrides.folderID {
                if let problem = ZoneID.folderProblem(with: given) {
                    throw ConfigurationError(.invalidValue, key: "--folder-id", message: "\(quoted(given)) cannot be a zone name: \(problem)")
                }
                id = given
            }
            var folder = FolderConfiguration(id: id, path: URL(filePath: path, directoryHint: .isDirectory))
            if let text = overrides.share {
                guard overrides.folderID == nil else {
                    throw ConfigurationError(.invalidValue, key: "--folder-id", message: "a shared folder is named by its share; give --share or --folder-id, not both")
                }
                do { folder.share = try ShareName(parsing: text) } catch {
                    throw ConfigurationError(.invalidValue, key: "--share", message: "\(quoted(text)): \(error.message)")
                }
                folder.id = text
            }
            settings.folders = [folder]
        } else if overrides.folderID != nil {
            throw ConfigurationError(.invalidValue, key: "--folder-id", message: "names the zone of --folder PATH; give --folder too, or set id in the configuration file")
        } else if overrides.share != nil {
            throw ConfigurationError(.invalidValue, key: "--share", message: "attaches the --folder PATH folder to a share; give --folder too, or set share in a [[folders]] table")
        }
        try applyFolderFlags(overrides, to: &settings.folders)
        guard let backendURL = settings.backendURL else {
            throw ConfigurationError(.missingKey, key: "--backend", message: "is required")  // parse() checked the file case
        }
        let socketPath: String
        if let configured = settings.socketPath {
            socketPath = configured
        } else {
            let defaultPath = ControlSocketLocation.defaultPath(environment: environment)
            socketPath = try flagValue("socket") { try checkedSocketPath(defaultPath) }
        }
        var configuration = DaemonConfiguration(
            device: settings.device ?? defaultDevice,
            stateDirectory: URL(filePath: settings.stateDirectory ?? paths.stateDirectory, directoryHint: .isDirectory),
            socketPath: URL(filePath: socketPath, directoryHint: .notDirectory),
            backend: BackendConfiguration(url: backendURL, tokenFile: settings.tokenFile.map { URL(filePath: $0, directoryHint: .notDirectory) },
                                          caFile: settings.caFile.map { URL(filePath: $0, directoryHint: .notDirectory) }),
            folders: settings.folders
        )
        if let text = overrides.webListen {
            guard let listen = WebListen(parsing: text) else {
                throw ConfigurationError(.invalidValue, key: "--web-listen", message: Self.notLoopback(text))
            }
            configuration.webListen = listen
        }
        return configuration
    }

    /// Why `text` is no `web_listen`.
    static func notLoopback(_ text: String) -> String {
        "\(text.debugDescription) is not a loopback address and port; the status page listens on this machine only: write 127.0.0.1:PORT, localhost:PORT, [::1]:PORT or off"
    }

    /// `--mode`, `--conflict`, `--max-file-size`, `--keep-versions-days`: the same setting for every folder.
    private func applyFolderFlags(_ overrides: ConfigurationOverrides, to folders: inout [FolderConfiguration]) throws(ConfigurationError) {
        if let text = overrides.mode {
            guard let mode = FolderConfiguration.Mode(rawValue: text) else {
                throw ConfigurationError(.invalidValue, key: "--mode", message: Self.notOneOf(text, FolderConfiguration.Mode.allCases.map(\.rawValue)))
            }
            for index in folders.indices { folders[index].mode = mode }
        }
        if let text = overrides.conflictPolicy {
            guard let policy = ConflictPolicy(rawValue: text) else {
                throw ConfigurationError(.invalidValue, key: "--conflict", message: Self.notOneOf(text, ConflictPolicy.allCases.map(\.rawValue)))
            }
            for index in folders.indices { folders[index].conflictPolicy = policy }
        }
        if let text = overrides.maxFileSize {
            guard let size = ByteSize.parse(text), size > 0 else {
                throw ConfigurationError(.invalidValue, key: "--max-file-size", message: "\(quoted(text)) is not a size like 50MB or 512KiB")
            }
            for index in folders.indices { folders[index].maxFileSize = size }
        }
        if let days = overrides.keepVersionsDays {
            guard days >= 0 else { throw ConfigurationError(.invalidValue, key: "--keep-versions-days", message: "must not be negative") }
            for index in folders.indices { folders[index].keepVersionsDays = days }
        }
        if let percent = overrides.deleteBrakePercent {
            guard (0...100).contains(percent) else {
                throw ConfigurationError(.invalidValue, key: "--delete-brake-percent", message: "\(percent) is out of range; use a percentage from 0 (no brake) to 100")
            }
            for index in folders.indices { folders[index].deleteBrake.percent = percent }
        }
        if let minimum = overrides.deleteBrakeMinimum {
            guard minimum >= 0 else { throw ConfigurationError(.invalidValue, key: "--delete-brake-min", message: "must not be negative") }
            for index in folders.indices { folders[index].deleteBrake.minimum = minimum }
        }
        if let patterns = overrides.merge {
            let kept = patterns.filter { !$0.isEmpty }
            do { _ = try TextMergeRule(patterns: kept) } catch {
                throw ConfigurationError(.invalidValue, key: "--merge", message: error.message)
            }
            for index in folders.indices { folders[index].mergePatterns = kept }
        }
        if let text = overrides.cacheMaxSize {
            guard let size = ByteSize.parse(text), size > 0 else {
                throw ConfigurationError(.invalidValue, key: "--cache-max-size", message: "\(quoted(text)) is not a size like 10GB or 512MiB")
            }
            for index in folders.indices { folders[index].cacheMaxSize = size }
        }
        if let seconds = overrides.fetchTimeoutSeconds {
            guard (1...3_600).contains(seconds) else {
                throw ConfigurationError(.invalidValue, key: "--fetch-timeout", message: "\(seconds) is out of range; use a number of seconds from 1 to 3600")
            }
            for index in folders.indices { folders[index].fetchTimeoutSeconds = seconds }
        }
        if let text = overrides.mergeMaxSize {
            guard let size = ByteSize.parse(text), size > 0 else {
                throw ConfigurationError(.invalidValue, key: "--merge-max-size", message: "\(quoted(text)) is not a size like 1MB or 512KiB")
            }
            for index in folders.indices { folders[index].mergeMaxSize = size }
        }
    }

    /// The host name, when it is a valid device name; else "linux".
    private var defaultDevice: String {
        (try? checkedDevice(hostName)) ?? "linux"
    }

    // MARK: Values (a problem is a `ValueProblem` message, placed by the caller)

    private struct ValueProblem: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// `body`'s value; its `ValueProblem` becomes an error naming `path` and its line.
    private func fileValue<T>(_ document: ConfigurationDocument, _ path: TOMLKeyPath, _ body: () throws -> T) throws(ConfigurationError) -> T {
        do {
            return try body()
        } catch {
            throw document.error(.invalidValue, at: path, (error as? ValueProblem)?.message ?? "\(error)")
        }
    }

    /// `body`'s value; its `ValueProblem` becomes an error naming `flag`.
    private func flagValue<T>(_ flag: String, _ body: () throws -> T) throws(ConfigurationError) -> T {
        do {
            return try body()
        } catch {
            throw ConfigurationError(.invalidValue, key: flag, message: (error as? ValueProblem)?.message ?? "\(error)")
        }
    }

    private func checkedDevice(_ name: String) throws(ValueProblem) -> String {
        if name.isEmpty { throw ValueProblem("the device name is empty") }
        if name.utf8.count > 100 { throw ValueProblem("\(quoted(name)) is longer than 100 bytes") }
        if name == "." || name == ".." || name.contains("/") || name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw ValueProblem("\(quoted(name)) cannot be part of a file name (it appears in conflict copies); avoid '/' and control characters")
        }
        if name.first!.isWhitespace || name.last!.isWhitespace {
            throw ValueProblem("\(quoted(name)) starts or ends with a space")
        }
        return name
    }

    /// A path from the file: absolute or `~`-relative.
    private func filePath(_ text: String) throws(ValueProblem) -> String {
        guard let expanded = paths.expandingTilde(text) else {
            throw ValueProblem("\(quoted(text)): ~user paths are not supported; write the full path")
        }
        guard expanded.hasPrefix("/") else {
            throw ValueProblem("\(quoted(text)) is not an absolute path; start it with / or ~/")
        }
        return PathNormalization.normalize(expanded)
    }

    /// A path from a flag: absolute, `~`-relative, or relative to the current directory.
    private func flagPath(_ text: String) throws(ValueProblem) -> String {
        guard !text.isEmpty else { throw ValueProblem("the path is empty") }
        guard let expanded = paths.expandingTilde(text) else {
            throw ValueProblem("\(quoted(text)): ~user paths are not supported; write the full path")
        }
        return PathNormalization.normalize(expanded.hasPrefix("/") ? expanded : currentDirectory + "/" + expanded)
    }

    private func checkedSocketPath(_ path: String) throws(ValueProblem) -> String {
        let limit = ControlSocketLocation.maximumPathLength
        guard path.utf8.count <= limit else {
            throw ValueProblem("\(path) is longer than \(limit) bytes, the most a Unix socket path may have")
        }
        return path
    }

    private func backendURL(_ text: String) throws(ValueProblem) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            throw ValueProblem("\(quoted(text)) is not a URL; write file:///path or http://host:port")
        }
        switch scheme {
        case "file":
            if let host = url.host(), !host.isEmpty, host != "localhost" {
                throw ValueProblem("\(quoted(text)) names a host (\(host)); a local backend is file:///path, with three slashes")
            }
            let path = url.path(percentEncoded: false)
            guard path.hasPrefix("/"), path != "/" else {
                throw ValueProblem("\(quoted(text)) has no directory; write file:///path/to/backend")
            }
            return URL(filePath: PathNormalization.normalize(path), directoryHint: .isDirectory)
        case "http", "https":
            guard let host = url.host(), !host.isEmpty else {
                throw ValueProblem("\(quoted(text)) has no host; write \(scheme)://host:port")
            }
            return url
        default:
            throw ValueProblem("\(quoted(text)) is not a file:// or http(s):// URL")
        }
    }

    private static func systemHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "linux" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

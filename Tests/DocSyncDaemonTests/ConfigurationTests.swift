import DocSyncCore
import DocSyncDaemon
import DocSyncTestSupport
import Foundation
import Testing

/// A loader that depends on nothing of this machine.
private let loader = ConfigurationLoader(
    environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], homeDirectory: "/home/ada", hostName: "ada-laptop", currentDirectory: "/work"
)

/// The smallest valid file, for tests that change one thing.
private let minimal = """
    [backend]
    url = "file:///srv/docsync"

    [[folders]]
    id = "Documents"
    path = "~/Documents"
    """

/// Parses `text` as docsync.toml and returns the error it must produce.
private func parseError(_ text: String, overrides: ConfigurationOverrides = ConfigurationOverrides(), sourceLocation: SourceLocation = #_sourceLocation) -> ConfigurationError? {
    do {
        let configuration = try loader.parse(text, source: "docsync.toml", overrides: overrides)
        Issue.record("expected an error, got \(configuration)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

@Suite struct ConfigurationTests {
    // MARK: The example file and defaults

    @Test(arguments: [("upload_limit = 500000", Int64(500_000), true), ("upload_limit = \"2MB\"", 2_000_000, true),
                      ("upload_limit = 0", 0, true), ("upload_limit = \"fast\"", 0, false), ("upload_limit = -1", 0, false)])
    func bandwidthLimits(line: String, bytes: Int64, valid: Bool) throws {
        let text = line + "\n" + minimal
        if valid {
            #expect(try loader.parse(text, source: "docsync.toml").uploadLimit == bytes)
        } else {
            #expect(throws: ConfigurationError.self) { try loader.parse(text, source: "docsync.toml") }
        }
    }

    @Test func theExampleFileLoadsWithItsValues() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("config/docsync.example.toml")
        let configuration = try loader.load(contentsOf: example.path)
        #expect(configuration.device == "laptop")
        #expect(configuration.stateDirectory.path == "/home/ada/.local/state/docsync")
        #expect(configuration.socketPath.path == "/run/user/1000/docsync/control.sock")
        #expect(configuration.uploadLimit == 0 && configuration.downloadLimit == 10_000_000)
        #expect(configuration.backend.url == URL(string: "http://127.0.0.1:8787"))
        #expect(configuration.backend.tokenFile?.path == "/home/ada/.config/docsync/token")
        #expect(configuration.folders.map(\.id) == ["Documents", "Pictures"])
        let documents = configuration.folders[0], pictures = configuration.folders[1]
        #expect(documents.path.path == "/home/ada/Documents")
        #expect(documents.mode == .mirror && documents.conflictPolicy == .keepBoth)
        #expect(documents.maxFileSize == 50_000_000 && documents.keepVersionsDays == 30)
        #expect(pictures.path.path == "/home/ada/Pictures")
        #expect(pictures.mode == .onDemand && pictures.conflictPolicy == .newestWins)
        #expect(pictures.maxFileSize == 200_000_000 && pictures.keepVersionsDays == 7)
        #expect(documents.mergePatterns == TextMergeRule.defaultPatterns && documents.mergeMaxSize == 1_000_000)
    }

    @Test func mergeGlobsAndTheirLimit() throws {
        let set = try loader.parse(minimal + "\nmerge = [\"*.md\", \"notes/*.txt\"]\nmerge_max_size = \"256KiB\"\n", source: "docsync.toml")
        #expect(set.folders[0].mergePatterns == ["*.md", "notes/*.txt"] && set.folders[0].mergeMaxSize == 262_144)
        let none = try loader.parse(minimal + "\nmerge = []\n", source: "docsync.toml")
        #expect(none.folders[0].mergePatterns.isEmpty)
        let defaults = try loader.parse(minimal, source: "docsync.toml")
        #expect(defaults.folders[0].mergePatterns == TextMergeRule.defaultPatterns && defaults.folders[0].mergeMaxSize == 1_000_000)
        let flags = try loader.parse(minimal, source: "docsync.toml", overrides: ConfigurationOverrides(merge: ["*.org"], mergeMaxSize: "2MB"))
        #expect(flags.folders[0].mergePatterns == ["*.org"] && flags.folders[0].mergeMaxSize == 2_000_000)
        let off = try loader.parse(minimal, source: "docsync.toml", overrides: ConfigurationOverrides(merge: [""]))
        #expect(off.folders[0].mergePatterns.isEmpty)

        let cases: [(String, String)] = [
            (minimal + "\nmerge = \"*.md\"", #"docsync.toml:7: folders[0].merge: expected an array of globs (["*.md", "*.txt"]), found a string ("*.md")"#),
            (minimal + "\nmerge = [\"*.md\", 3]", #"docsync.toml:7: folders[0].merge: expected a glob string such as "*.md", found an integer (3)"#),
            (minimal + "\nmerge = [\"[*.md\"]", "docsync.toml:7: folders[0].merge: merge pattern '[*.md': "),
            (minimal + "\nmerge_max_size = \"big\"", #"docsync.toml:7: folders[0].merge_max_size: "big" is not a size; "#),
        ]
        for (text, start) in cases {
            let error = try #require(parseError(text))
            #expect(error.description.hasPrefix(start), "\(error)")
        }
        let flag = try #require(parseError(minimal, overrides: ConfigurationOverrides(mergeMaxSize: "lots")))
        #expect(flag.description.contains("--merge-max-size"), "\(flag)")
    }

    @Test func defaultsFillWhatTheFileLeavesOut() throws {
        let configuration = try loader.parse(minimal, source: "docsync.toml")
        #expect(configuration == DaemonConfiguration(
            device: "ada-laptop",
            stateDirectory: URL(filePath: "/home/ada/.local/state/docsync", directoryHint: .isDirectory),
            socketPath: URL(filePath: "/run/user/1000/docsync/control.sock", directoryHint: .notDirectory),
            backend: BackendConfiguration(url: URL(filePath: "/srv/docsync", directoryHint: .isDirectory)),
            folders: [FolderConfiguration(
                id: "Documents", path: URL(filePath: "/home/ada/Documents", directoryHint: .isDirectory),
                mode: .mirror, conflictPolicy: .keepBoth, maxFileSize: 50_000_000, keepVersionsDays: 30
            )]
        ))
    }

    @Test func defaultsFollowTheXDGVariables() throws {
        let custom = ConfigurationLoader(
            environment: ["XDG_STATE_HOME": "/xdg/state/", "XDG_CONFIG_HOME": "/xdg/config", "TMPDIR": "/var/tmp"],
            homeDirectory: "/home/bo", hostName: "bo-desk", currentDirectory: "/"
        )
        let configuration = try custom.parse(minimal, source: "docsync.toml")
        #expect(configuration.stateDirectory.path == "/xdg/state/docsync")
        #expect(custom.paths.configurationFile == "/xdg/config/docsync/docsync.toml")
        #expect(configuration.folders[0].path.path == "/home/bo/Documents")
        #expect(configuration.device == "bo-desk")
        // Relative XDG values are ignored, as the XDG specification says.
        let relative = ConfigurationLoader(environment: ["XDG_STATE_HOME": "state", "XDG_CONFIG_HOME": ""], homeDirectory: "/home/bo", hostName: "h")
        #expect(relative.paths.stateDirectory == "/home/bo/.local/state/docsync")
        #expect(relative.paths.configurationFile == "/home/bo/.config/docsync/docsync.toml")
    }

    @Test func sizes() throws {
        let table: [(String, Int64?)] = [
            ("50MB", 50_000_000), ("512KiB", 524_288), ("123", 123), ("0", 0), ("1B", 1),
            ("1KB", 1_000), ("1GB", 1_000_000_000), ("2TB", 2_000_000_000_000),
            ("1MiB", 1_048_576), ("1GiB", 1_073_741_824), ("1TiB", 1_099_511_627_776),
            ("1.5MB", 1_500_000), ("1.5 KiB", 1_536), ("50 mb", 50_000_000), ("8 gib", 8_589_934_592), (" 7kb ", 7_000),
            ("", nil), ("MB", nil), ("50XB", nil), ("-1MB", nil), ("+1MB", nil), ("1.5B", nil), ("1.0000001KB", nil),
            ("1.", nil), (".5MB", nil), ("1..5MB", nil), ("9999999999TB", nil), ("5 M B", nil), ("١MB", nil),
        ]
        for (text, bytes) in table {
            #expect(ByteSize.parse(text) == bytes, "\(text.debugDescription)")
        }
        // In the file, an integer is a number of bytes.
        let configuration = try loader.parse(minimal + "\nmax_file_size = 1048576\n", source: "docsync.toml")
        #expect(configuration.folders[0].maxFileSize == 1_048_576)
    }

    // MARK: Errors name the key and the line

    @Test func syntaxErrorsNameTheLine() throws {
        let error = try #require(parseError("""
            device = "laptop"

            [backend
            url = "file:///srv"
            """))
        #expect(error.kind == .syntax)
        #expect(error.line == 3)
        #expect(error.description.hasPrefix("docsync.toml:3: "), "\(error)")
    }

    @Test func unknownKeys() throws {
        let topLevel = try #require(parseError("# docsync\n\ncolour = \"blue\"\n" + minimal))
        #expect(topLevel.kind == .unknownKey)
        #expect(topLevel.description == "docsync.toml:3: colour: unknown key; the keys here are device, state_dir, socket, notifications, upload_limit, download_limit, web_listen, backend, folders")

        let typo = try #require(parseError(minimal + "\nconflicts = \"keep-both\"\n"))
        #expect(typo.description == "docsync.toml:7: folders[0].conflicts: unknown key; did you mean conflict?")
        #expect(typo.line == 7 && typo.key == "folders[0].conflicts")

        let backend = try #require(parseError("""
            [backend]
            url = "file:///srv/docsync"
            tokenfile = "~/token"
            """))
        #expect(backend.description == "docsync.toml:3: backend.tokenfile: unknown key; did you mean token_file?")

        let table = try #require(parseError(minimal + "\n[extras]\nx = 1\n"))
        #expect(table.description == "docsync.toml:7: extras: unknown key; the keys here are device, state_dir, socket, notifications, upload_limit, download_limit, web_listen, backend, folders")
    }

    @Test func badValuesNameKeyAndLine() throws {
        let cases: [(String, String)] = [
            (minimal + "\nmode = \"mirorr\"", #"docsync.toml:7: folders[0].mode: "mirorr" is not one of mirror, on-demand, send-only, receive-only"#),
            (minimal + "\nconflict = \"mine\"", #"docsync.toml:7: folders[0].conflict: "mine" is not one of keep-both, newest-wins, local-wins, remote-wins"#),
            (minimal + "\nkeep_versions_days = \"30\"", #"docsync.toml:7: folders[0].keep_versions_days: expected an integer, found a string ("30")"#),
            (minimal + "\nkeep_versions_days = -1", "docsync.toml:7: folders[0].keep_versions_days: -1 is out of range; use a number of days from 0 to 36500"),
            (minimal + "\nmax_file_size = \"50XB\"", #"docsync.toml:7: folders[0].max_file_size: "50XB" is not a size; write a positive number of bytes or a number with a unit: "50MB", "512KiB" (units: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)"#),
            (minimal + "\nmax_file_size = 0", #"docsync.toml:7: folders[0].max_file_size: 0 is not a size; write a positive number of bytes or a number with a unit: "50MB", "512KiB" (units: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)"#),
            (minimal + "\nmax_file_size = 5.5", #"docsync.toml:7: folders[0].max_file_size: expected a size ("50MB", "512KiB") or a number of bytes, found a floating-point number (5.5)"#),
            ("device = 7\n" + minimal, "docsync.toml:1: device: expected a string, found an integer (7)"),
            ("device = \"\"\n" + minimal, "docsync.toml:1: device: the device name is empty"),
            ("device = \"a/b\"\n" + minimal, #"docsync.toml:1: device: "a/b" cannot be part of a file name (it appears in conflict copies); avoid '/' and control characters"#),
            ("state_dir = \"state\"\n" + minimal, #"docsync.toml:1: state_dir: "state" is not an absolute path; start it with / or ~/"#),
            ("state_dir = \"~bob/state\"\n" + minimal, #"docsync.toml:1: state_dir: "~bob/state": ~user paths are not supported; write the full path"#),
            ("socket = \"/tmp/\(String(repeating: "s", count: 110))\"\n" + minimal, "docsync.toml:1: socket: /tmp/\(String(repeating: "s", count: 110)) is longer than 107 bytes, the most a Unix socket path may have"),
            (minimal.replacingOccurrences(of: "~/Documents", with: "Documents"), #"docsync.toml:6: folders[0].path: "Documents" is not an absolute path; start it with / or ~/"#),
            (minimal.replacingOccurrences(of: "\"Documents\"", with: "\"My/Docs\""), #"docsync.toml:5: folders[0].id: "My/Docs" contains "/"; use letters, digits, '.', '_', '-' or spaces"#),
            (minimal.replacingOccurrences(of: "\"Documents\"", with: "\".hidden\""), #"docsync.toml:5: folders[0].id: ".hidden" starts with '.'"#),
            (minimal.replacingOccurrences(of: "file:///srv/docsync", with: "ftp://host/x"), #"docsync.toml:2: backend.url: "ftp://host/x" is not a file:// or http(s):// URL"#),
            (minimal.replacingOccurrences(of: "file:///srv/docsync", with: "file://srv/docsync"), #"docsync.toml:2: backend.url: "file://srv/docsync" names a host (srv); a local backend is file:///path, with three slashes"#),
            (minimal.replacingOccurrences(of: "file:///srv/docsync", with: "http://"), #"docsync.toml:2: backend.url: "http://" has no host; write http://host:port"#),
            (minimal.replacingOccurrences(of: "file:///srv/docsync", with: "not a url"), #"docsync.toml:2: backend.url: "not a url" is not a URL; write file:///path or http://host:port"#),
            ("backend = \"file:///srv\"\n[[folders]]\nid = \"A\"\npath = \"/a\"", "docsync.toml:1: backend: expected a table ([backend]), found a string (\"file:///srv\")"),
            ("folders = \"Documents\"\n[backend]\nurl = \"file:///srv\"", "docsync.toml:1: folders: expected an array of tables ([[folders]]), found a string (\"Documents\")"),
        ]
        for (text, expected) in cases {
            let error = try #require(parseError(text), "\(expected)")
            #expect(error.description == expected)
            #expect(error.kind == .invalidValue, "\(expected)")
        }
    }

    @Test func theSecondFolderIsNumberedOne() throws {
        let text = minimal + """

            mode = "send-only"

            [[folders]]
            id = "Pictures"
            path = "~/Pictures"
            mode = "mirorr"
            """
        let error = try #require(parseError(text))
        #expect(error.description == #"docsync.toml:12: folders[1].mode: "mirorr" is not one of mirror, on-demand, send-only, receive-only"#)
    }

    @Test func linesSurviveMultilineStringsCommentsAndInlineTables() throws {
        let text = #"""
            # "[[folders]]" in a comment is not a table
            device = """
            laptop"""
            state_dir = '''
            /var/lib/docsync'''
            backend = { url = "file:///srv/docsync", token_file = "/t" }

            [[folders]]   # the first folder
            "id" = "Documents"
            path = "/home/ada/Documents"
            mode = "mirror"  # the default
            conflict = "local-wins"

            [[folders]]
            id = "Music"
            path = "/home/ada/Music"
            keep_versions_days = 400000
            """#
        let error = try #require(parseError(text))
        #expect(error.description == "docsync.toml:17: folders[1].keep_versions_days: 400000 is out of range; use a number of days from 0 to 36500")
        let inline = try #require(parseError(#"backend = { url = "ftp://x" }"# + "\n[[folders]]\nid = \"A\"\npath = \"/a\""))
        #expect(inline.line == 1 && inline.key == "backend.url")
    }

    @Test func missingKeys() throws {
        let noURL = try #require(parseError("[backend]\ntoken_file = \"/t\"\n[[folders]]\nid = \"A\"\npath = \"/a\""))
        #expect(noURL.kind == .missingKey)
        #expect(noURL.description == "docsync.toml:1: backend.url: required key is missing; write the backend's address (file:///path or http://host:port) or pass --backend URL")
        let noBackend = try #require(parseError("[[folders]]\nid = \"A\"\npath = \"/a\""))
        #expect(noBackend.line == nil)
        #expect(noBackend.description.hasPrefix("docsync.toml: backend.url: required key is missing"))

        let noID = try #require(parseError(minimal + "\n\n[[folders]]\npath = \"/music\""))
        #expect(noID.kind == .missingKey)
        #expect(noID.description == "docsync.toml:8: folders[1].id: required key is missing; every [[folders]] table needs an id (the zone name), or a share (OWNER/ID)")
        let noPath = try #require(parseError(minimal + "\n\n[[folders]]\nid = \"Music\""))
        #expect(noPath.description == "docsync.toml:8: folders[1].path: required key is missing; every [[folders]] table needs a path")

        let noFolders = try #require(parseError("[backend]\nurl = \"file:///srv\""))
        #expect(noFolders.kind == .missingKey)
        #expect(noFolders.description == "docsync.toml: folders: no folder to sync; add a [[folders]] table with id and path, or pass --folder PATH")
    }

    @Test func foldersMustBeDistinct() throws {
        let duplicate = try #require(parseError(minimal + "\n\n[[folders]]\nid = \"Documents\"\npath = \"/elsewhere\""))
        #expect(duplicate.kind == .duplicateFolderID)
        #expect(duplicate.description == #"docsync.toml:9: folders[1].id: "Documents" is already the id of folders[0]"#)

        let nested = try #require(parseError(minimal + "\n\n[[folders]]\nid = \"Work\"\npath = \"/home/ada/Documents/work\""))
        #expect(nested.kind == .overlappingFolders)
        #expect(nested.description == "docsync.toml:10: folders[1].path: /home/ada/Documents/work is inside folders[0].path; a folder can be synced only once")

        let same = try #require(parseError(minimal + "\n\n[[folders]]\nid = \"Again\"\npath = \"/home/ada/./Documents/\""))
        #expect(same.description == "docsync.toml:10: folders[1].path: /home/ada/Documents is also folders[0].path; a folder can be synced only once")

        let parent = try #require(parseError(minimal + "\n\n[[folders]]\nid = \"Home\"\npath = \"~\""))
        #expect(parent.description == "docsync.toml:10: folders[1].path: /home/ada contains folders[0].path; a folder can be synced only once")
    }

    @Test func unreadableAndAbsentFiles() throws {
        let directory = try TemporaryDirectory("cfg")
        do {
            _ = try loader.load(contentsOf: "\(directory.path)/none.toml")
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.kind == .unreadableFile)
            #expect(error.description.hasPrefix("\(directory.path)/none.toml: cannot read the configuration file"), "\(error)")
        }
        let empty = ConfigurationLoader(environment: ["XDG_CONFIG_HOME": directory.path], homeDirectory: "/home/ada", hostName: "h")
        do {
            _ = try empty.load(configurationFile: nil, overrides: ConfigurationOverrides())
            Issue.record("loaded without a file")
        } catch {
            #expect(error.kind == .noConfiguration)
            #expect(error.description == "no configuration file at \(directory.path)/docsync/docsync.toml; create one (config/docsync.example.toml documents every key) or run docsyncd --folder PATH --backend URL")
        }
        // The default file, once it exists, is the one read.
        try FileManager.default.createDirectory(atPath: "\(directory.path)/docsync", withIntermediateDirectories: true)
        try Data(minimal.utf8).write(to: URL(fileURLWithPath: "\(directory.path)/docsync/docsync.toml"))
        #expect(try empty.load(configurationFile: nil, overrides: ConfigurationOverrides()).folders.map(\.id) == ["Documents"])
    }

    // MARK: Flags

    @Test func flagsOverrideTheFile() throws {
        let overrides = ConfigurationOverrides(
            device: "bench", stateDirectory: "state", socketPath: "~/s.sock",
            backendURL: "https://sync.example.org:8787", tokenFile: "../token"
        )
        let configuration = try loader.parse("device = \"laptop\"\n" + minimal, source: "docsync.toml", overrides: overrides)
        #expect(configuration.device == "bench")
        #expect(configuration.stateDirectory.path == "/work/state")
        #expect(configuration.socketPath.path == "/home/ada/s.sock")
        #expect(configuration.backend.url == URL(string: "https://sync.example.org:8787"))
        #expect(configuration.backend.tokenFile?.path == "/token")
        #expect(configuration.folders.map(\.id) == ["Documents"])

        // --folder replaces the file's folders; --backend stands in for a missing backend.url.
        let replaced = try loader.parse(minimal, source: "docsync.toml", overrides: ConfigurationOverrides(folder: "/data/Scans/"))
        #expect(replaced.folders == [FolderConfiguration(id: "Scans", path: URL(filePath: "/data/Scans", directoryHint: .isDirectory))])
        let noURL = try loader.parse("[[folders]]\nid = \"A\"\npath = \"/a\"", source: "docsync.toml", overrides: ConfigurationOverrides(backendURL: "file:///b"))
        #expect(noURL.backend.url.path == "/b")
    }

    @Test func oneFolderWithoutAFile() throws {
        let configuration = try loader.load(
            configurationFile: nil,
            overrides: ConfigurationOverrides(backendURL: "file:///srv/docsync", folder: "Notes")
        )
        #expect(configuration.folders == [FolderConfiguration(id: "Notes", path: URL(filePath: "/work/Notes", directoryHint: .isDirectory))])
        #expect(configuration.backend.url.path == "/srv/docsync")
        #expect(configuration.device == "ada-laptop")
        #expect(configuration.socketPath.path == "/run/user/1000/docsync/control.sock")

        do {
            _ = try loader.configuration(from: ConfigurationOverrides(folder: "/data"))
            Issue.record("no backend accepted")
        } catch {
            #expect(error.description == "--backend: is required with --folder when there is no configuration file: docsyncd --folder PATH --backend URL")
        }
        do {
            _ = try loader.configuration(from: ConfigurationOverrides(backendURL: "ftp://x", folder: "/data"))
            Issue.record("bad backend accepted")
        } catch {
            #expect(error.kind == .invalidValue)
            #expect(error.description == #"--backend: "ftp://x" is not a file:// or http(s):// URL"#)
        }
        do {
            _ = try loader.configuration(from: ConfigurationOverrides(device: "a\nb", backendURL: "file:///b", folder: "/data"))
            Issue.record("bad device accepted")
        } catch {
            #expect(error.key == "--device" && error.source == nil && error.line == nil)
        }
    }

    @Test func folderIDsFromPaths() {
        let table: [(String, String)] = [
            ("/home/ada/Documents", "Documents"), ("/home/ada/My Docs+2", "My Docs_2"), ("/home/ada/.hidden", "hidden"),
            ("/", "folder"), ("/srv/Ünïcödé", "Ünïcödé"), ("/a/b/", "b"), ("/x/...", "folder"), ("/x/a:b", "a_b"),
        ]
        for (path, id) in table {
            #expect(ConfigurationLoader.folderID(forPath: path) == id, "\(path)")
            #expect(ZoneID.problem(with: ConfigurationLoader.folderID(forPath: path)) == nil)
        }
    }

    // MARK: Shares (SPEC §11)

    @Test func aFolderAttachedToAShareIsNamedByIt() throws {
        let text = minimal.replacingOccurrences(of: "url = \"file:///srv/docsync\"", with: "url = \"http://127.0.0.1:8787\"\ntoken_file = \"/t\"")
            + "\n\n[[folders]]\nshare = \"alice/Taxes 2026\"\npath = \"~/Taxes\""
        let configuration = try loader.parse(text, source: "docsync.toml", overrides: ConfigurationOverrides())
        let folder = try #require(configuration.folders.last)
        #expect(folder.share == ShareName(owner: "alice", zone: ZoneID("Taxes 2026")))
        #expect(folder.id == "alice/Taxes 2026")
        #expect(folder.zoneName == "Taxes 2026")
        #expect(configuration.folders.first?.share == nil && configuration.folders.first?.zoneName == "Documents")

        let both = try #require(parseError(minimal + "\n\n[[folders]]\nshare = \"alice/Taxes\"\nid = \"Taxes\"\npath = \"/taxes\""))
        #expect(both.description == "docsync.toml:10: folders[1].id: a shared folder is named by its share; drop id, or share")
        let bad = try #require(parseError(minimal + "\n\n[[folders]]\nshare = \"alice\"\npath = \"/taxes\""))
        #expect(bad.kind == .invalidValue && bad.key == "folders[1].share")
    }

    @Test func theShareFlagAttachesTheOneFolder() throws {
        let configuration = try loader.configuration(from: ConfigurationOverrides(
            backendURL: "http://127.0.0.1:8787", tokenFile: "/t", folder: "/home/ada/Taxes", share: "alice/Taxes"))
        #expect(configuration.folders.map(\.id) == ["alice/Taxes"])
        #expect(configuration.folders.first?.share?.owner == "alice")
        let withID = #expect(throws: ConfigurationError.self) {
            try loader.configuration(from: ConfigurationOverrides(backendURL: "http://127.0.0.1:8787", folder: "/home/ada/Taxes",
                                                                  folderID: "Taxes", share: "alice/Taxes"))
        }
        #expect(withID?.key == "--folder-id")
        let alone = try #require(parseError(minimal, overrides: ConfigurationOverrides(share: "alice/Taxes")))
        #expect(alone.key == "--share")
    }
}

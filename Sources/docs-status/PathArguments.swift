import Foundation

/// Paths given on the command line, as the daemon wants them: absolute, standardized.
enum PathArguments {
    /// `path` made absolute against `directory` (default: the current directory) and
    /// standardized without touching the file system: no `.` or `..` components, no
    /// repeated or trailing `/` ("/" stays "/"). Symlinks are left as they are.
    static func absolute(_ path: String, from directory: String = FileManager.default.currentDirectoryPath) -> String {
        let full = path.hasPrefix("/") ? path : directory + "/" + path
        var components: [Substring] = []
        for component in full.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": if !components.isEmpty { components.removeLast() }
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }

    static func absolute(_ paths: [String]) -> [String] {
        let directory = FileManager.default.currentDirectoryPath
        return paths.map { absolute($0, from: directory) }
    }
}

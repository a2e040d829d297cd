import Foundation

/// Whether `path` lies on ext4: the longest mount point in /proc/self/mounts above it.
func isExt4(_ path: String) -> Bool {
    guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return false }
    let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    let entries = mounts.split(separator: "\n").map { $0.split(separator: " ") }.filter { $0.count > 2 }
    let covering = entries.filter { entry in
        let point = String(entry[1])
        return real == point || real.hasPrefix(point == "/" ? "/" : point + "/")
    }
    return covering.max { $0[1].count < $1[1].count }?[2] == "ext4"
}

import Foundation

/// The kernel's inotify limits, read from `/proc/sys/fs/inotify` (not through
/// libinotifytools, whose `get_max_queued_events` reads the wrong file), and the advice a
/// person needs when one is reached.
///
/// A caller may rely on: each value is the current setting, or nil when it cannot be read;
/// each advice string names the setting and the command that raises it.
enum InotifyLimits {
    static var maxUserWatches: Int? { read("max_user_watches") }
    static var maxQueuedEvents: Int? { read("max_queued_events") }
    static var maxUserInstances: Int? { read("max_user_instances") }

    static var watchLimitAdvice: String {
        let current = maxUserWatches.map { " (now \($0))" } ?? ""
        return "the per-user inotify watch limit fs.inotify.max_user_watches\(current) is reached; "
            + "raise it with `sudo sysctl fs.inotify.max_user_watches=524288` "
            + "(and in /etc/sysctl.d/ to keep it after a reboot)"
    }

    static var queueAdvice: String {
        let current = maxQueuedEvents.map { " (now \($0))" } ?? ""
        return "the kernel's inotify event queue fs.inotify.max_queued_events\(current) overflowed; "
            + "if this happens often, raise it with `sudo sysctl fs.inotify.max_queued_events=65536`"
    }

    static var instanceAdvice: String {
        let current = maxUserInstances.map { " (now \($0))" } ?? ""
        return "the per-user inotify instance limit fs.inotify.max_user_instances\(current) may be reached; "
            + "close other watching programs or raise it with `sudo sysctl fs.inotify.max_user_instances=1024`"
    }

    private static func read(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/sys/fs/inotify/\(name)", encoding: .utf8) else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

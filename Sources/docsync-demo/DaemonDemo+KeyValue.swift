import Foundation

extension DaemonDemo {
    /// One setting through a key-value store (SPEC §12): the laptop writes it, the
    /// desktop reads it once it arrived.
    func keyValueSetting(laptop: Device, desktop: Device) async throws {
        step.title("16. A setting through a key-value store: org.example.editor's theme, from the laptop to the desktop")
        let store = ["--store", "org.example.editor"]
        step.say("$ docs-status kv set theme '{\"name\":\"dark\",\"size\":14}' --store org.example.editor   (on the laptop)")
        _ = try laptop.docsStatus(["kv", "set", "theme", "{\"name\":\"dark\",\"size\":14}"] + store)
        let arrived = await until { ((try? desktop.docsStatus(["kv", "get", "theme"] + store, quiet: true)) ?? "").contains("dark") }
        step.say("on the desktop after \(arrived):")
        step.say("$ docs-status kv list --store org.example.editor   (on the desktop)")
        for line in try desktop.docsStatus(["kv", "list"] + store).split(separator: "\n") { step.say("  " + String(line)) }
    }
}

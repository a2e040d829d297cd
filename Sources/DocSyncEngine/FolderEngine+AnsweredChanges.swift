import DocSyncCore

/// Records the server answered a save with (`serverRecordChanged`: another device changed
/// the record since the save's base). Each is a remote change like a fetched one: it goes
/// through observe → plan → execute after the send that met it, in the same turn, instead
/// of being applied in the middle of a page being sent. What the plan makes of it (a merge,
/// a conflict copy, an edit that beats a deletion) is then pending, and the next turn sends it.
extension FolderEngine {
    /// Applies the records kept by `EngineLoop.noteAnswered`, folders first and shallow before deep (as
    /// a fetched page is applied). Those not applied when an error stops it are kept for the
    /// next call; a fetch bringing the same record meanwhile makes applying it again a no-op.
    func applyAnsweredChanges(loop: inout EngineLoop) async throws(SyncError) {
        let answered = loop.answeredChanges
        loop.answeredChanges = [:]
        guard !answered.isEmpty else { return }
        var ordered = RemotePagePlanner.order(Array(answered.values), skipping: [])[...]
        do throws(SyncError) {
            while let record = ordered.first {
                try await applyRemoteChange(.saved(record), loop: &loop)
                ordered = ordered.dropFirst()
            }
        } catch {
            loop.noteAnswered(Array(ordered))
            throw error
        }
    }
}

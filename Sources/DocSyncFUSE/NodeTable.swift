import Synchronization

/// The FUSE node ids the kernel holds, each naming an item by its parent's id and its name
/// (the root is id 1), with the kernel's lookup count.
///
/// What a caller may rely on: an id stays the same item while the kernel holds it — a
/// rename moves the node, not its id, so everything beneath follows — and is forgotten only
/// when the kernel's lookups of it are all forgotten. Ids are never reused within a mount.
/// Safe to use from every FUSE thread.
final class NodeTable: Sendable {
    static let rootID: UInt64 = 1

    private struct Node {
        var parent: UInt64
        var name: String
        var lookups: UInt64
    }

    private struct Key: Hashable {
        var parent: UInt64
        var name: String
    }

    private struct State {
        var nodes: [UInt64: Node] = [NodeTable.rootID: Node(parent: 0, name: "", lookups: 1)]
        var ids: [Key: UInt64] = [:]
        var next: UInt64 = NodeTable.rootID + 1
    }

    private let state = Mutex(State())

    /// The path of `id` relative to the root ("" for the root), or nil for an id not held.
    func path(of id: UInt64) -> String? {
        state.withLock { state in
            var names: [String] = []
            var current = id
            while current != NodeTable.rootID {
                guard let node = state.nodes[current] else { return nil }
                names.append(node.name)
                current = node.parent
            }
            return names.reversed().joined(separator: "/")
        }
    }

    /// The id the kernel holds for the relative `path` ("" is the root), or nil when it holds
    /// none (nothing made).
    func existingID(of path: String) -> UInt64? {
        guard !path.isEmpty else { return NodeTable.rootID }
        return state.withLock { state in
            var current = NodeTable.rootID
            for name in path.split(separator: "/", omittingEmptySubsequences: true) {
                guard let next = state.ids[Key(parent: current, name: String(name))] else { return nil }
                current = next
            }
            return current
        }
    }

    /// Every (parent, name, id) the kernel holds, the root aside.
    func allEntries() -> [(parent: UInt64, name: String, id: UInt64)] {
        state.withLock { state in state.ids.map { ($0.key.parent, $0.key.name, $0.value) } }
    }

    /// The id of `name` in `parent` (made when new), its lookup count raised by `count`
    /// (a reply that hands the id to the kernel counts 1; a peek counts 0).
    func lookup(_ parent: UInt64, _ name: String, count: UInt64 = 1) -> UInt64 {
        state.withLock { state in
            let key = Key(parent: parent, name: name)
            if let id = state.ids[key] {
                state.nodes[id]?.lookups += count
                return id
            }
            let id = state.next
            state.next += 1
            state.nodes[id] = Node(parent: parent, name: name, lookups: count)
            state.ids[key] = id
            return id
        }
    }

    /// Raises the lookup count of an id `lookup(…, count: 0)` gave, once a reply handed it over.
    func retain(_ id: UInt64) {
        state.withLock { state in state.nodes[id]?.lookups += 1 }
    }

    /// The kernel forgot `count` lookups of `id`: it goes when none are left.
    func forget(_ id: UInt64, _ count: UInt64) {
        guard id != NodeTable.rootID else { return }
        state.withLock { state in
            guard var node = state.nodes[id] else { return }
            node.lookups = node.lookups > count ? node.lookups - count : 0
            if node.lookups == 0 {
                state.nodes[id] = nil
                let key = Key(parent: node.parent, name: node.name)
                if state.ids[key] == id { state.ids[key] = nil }
            } else {
                state.nodes[id] = node
            }
        }
    }

    /// `name` in `parent` is now `newName` in `newParent`; what was there before goes out of
    /// the name index (the kernel still holds its id until it forgets it).
    func rename(_ parent: UInt64, _ name: String, to newParent: UInt64, _ newName: String) {
        state.withLock { state in
            let from = Key(parent: parent, name: name), to = Key(parent: newParent, name: newName)
            let replaced = state.ids.removeValue(forKey: to)
            guard let id = state.ids.removeValue(forKey: from) else { return }
            if let replaced, replaced != id { state.nodes[replaced]?.name = "" ; state.nodes[replaced]?.parent = NodeTable.detached }
            state.nodes[id]?.parent = newParent
            state.nodes[id]?.name = newName
            state.ids[to] = id
        }
    }

    /// Swaps two names (RENAME_EXCHANGE).
    func exchange(_ parent: UInt64, _ name: String, with otherParent: UInt64, _ otherName: String) {
        state.withLock { state in
            let a = Key(parent: parent, name: name), b = Key(parent: otherParent, name: otherName)
            let first = state.ids.removeValue(forKey: a), second = state.ids.removeValue(forKey: b)
            if let first {
                state.nodes[first]?.parent = otherParent
                state.nodes[first]?.name = otherName
                state.ids[b] = first
            }
            if let second {
                state.nodes[second]?.parent = parent
                state.nodes[second]?.name = name
                state.ids[a] = second
            }
        }
    }

    /// `name` in `parent` is gone (unlinked or removed): its id stays held by the kernel
    /// until forgotten, but no longer names a path.
    func remove(_ parent: UInt64, _ name: String) {
        state.withLock { state in
            guard let id = state.ids.removeValue(forKey: Key(parent: parent, name: name)) else { return }
            state.nodes[id]?.parent = NodeTable.detached
            state.nodes[id]?.name = ""
        }
    }

    /// The parent of removed nodes: an id never handed out, so their path is nil.
    private static let detached: UInt64 = 0

    /// How many ids are held (for tests and status).
    var count: Int { state.withLock { $0.nodes.count } }
}

@testable import DocSyncFUSE
import Testing

@Suite struct NodeTableTests {
    @Test func idsNamePathsAndFollowRenames() {
        let table = NodeTable()
        let docs = table.lookup(NodeTable.rootID, "Docs")
        let file = table.lookup(docs, "a.txt")
        #expect(table.path(of: file) == "Docs/a.txt")
        #expect(table.lookup(docs, "a.txt") == file)
        table.rename(NodeTable.rootID, "Docs", to: NodeTable.rootID, "Papers")
        #expect(table.path(of: file) == "Papers/a.txt")
        table.remove(docs, "a.txt")
        #expect(table.path(of: file) == nil)
        #expect(table.lookup(docs, "a.txt") != file)
    }

    @Test func anIdGoesWhenEveryLookupIsForgotten() {
        let table = NodeTable()
        let id = table.lookup(NodeTable.rootID, "x")
        _ = table.lookup(NodeTable.rootID, "x")
        table.forget(id, 1)
        #expect(table.path(of: id) == "x")
        table.forget(id, 1)
        #expect(table.path(of: id) == nil)
        #expect(table.count == 1)
    }

    @Test func exchangeSwapsNames() {
        let table = NodeTable()
        let a = table.lookup(NodeTable.rootID, "a"), b = table.lookup(NodeTable.rootID, "b")
        table.exchange(NodeTable.rootID, "a", with: NodeTable.rootID, "b")
        #expect(table.path(of: a) == "b")
        #expect(table.path(of: b) == "a")
    }

    @Test func mountPathsAreDecoded() {
        #expect(FuseMount.decodeMountPath("/home/me/My\\040Docs") == "/home/me/My Docs")
        #expect(FuseMount.decodeMountPath("/a\\134b") == "/a\\b")
    }
}

import Testing

@testable import DocSyncDaemon

@Suite struct TOMLKeyLocatorTests {
    private func path(_ text: String) -> TOMLKeyPath {
        // "folders[1].mode" → components
        var components: [TOMLKeyPath.Component] = []
        for part in text.split(separator: ".") {
            var name = Substring(part)
            var indices: [Int] = []
            while let open = name.lastIndex(of: "["), name.hasSuffix("]") {
                indices.insert(Int(name[name.index(after: open)..<name.index(before: name.endIndex)])!, at: 0)
                name = name[..<open]
            }
            components.append(.key(String(name)))
            components += indices.map { .index($0) }
        }
        return TOMLKeyPath(components)
    }

    @Test func tablesArraysAndDottedKeys() {
        let locator = TOMLKeyLocator(source: """
            top = 1
            a.b.c = 2
            [server]
            port = 3
            [[folders]]
            id = "A"
            [[folders]]
            id = "B"
            [folders.extra]
            x = 4
            [[folders.nested]]
            y = 5
            """)
        #expect(locator.line(of: path("top")) == 1)
        #expect(locator.line(of: path("a.b.c")) == 2)
        #expect(locator.line(of: path("a.b")) == 2)
        #expect(locator.line(of: path("server")) == 3)
        #expect(locator.line(of: path("server.port")) == 4)
        #expect(locator.line(of: path("server.missing")) == 3, "an absent key: its table's line")
        #expect(locator.line(of: path("folders[0]")) == 5)
        #expect(locator.line(of: path("folders[0].id")) == 6)
        #expect(locator.line(of: path("folders[1].id")) == 8)
        #expect(locator.line(of: path("folders[1].extra.x")) == 10)
        #expect(locator.line(of: path("folders[1].nested[0].y")) == 12)
        #expect(locator.line(of: path("absent")) == nil)
    }

    @Test func valuesThatSpanLinesAndLookLikeKeys() {
        let locator = TOMLKeyLocator(source: #"""
            basic = """
            [not.a.table]
            fake = 1 \"""
            """
            literal = '''
            [[nope]]
            '''
            list = [
              "]",  # a comment with ] and [[x]]
              { inner = 1 },
            ]
            'quoted.key' = "x" # comment
            "esc\"aped" = 'y'
            after = "#not a comment"
            last = 1
            """#)
        #expect(locator.line(of: path("basic")) == 1)
        #expect(locator.line(of: path("literal")) == 5)
        #expect(locator.line(of: path("list")) == 8)
        #expect(locator.line(of: TOMLKeyPath([.key("quoted.key")])) == 12)
        #expect(locator.line(of: TOMLKeyPath([.key("esc\"aped")])) == 13)
        #expect(locator.line(of: path("after")) == 14)
        #expect(locator.line(of: path("last")) == 15)
        #expect(locator.line(of: path("not")) == nil)
        #expect(locator.line(of: path("fake")) == nil)
        #expect(locator.line(of: path("nope")) == nil)
        #expect(locator.line(of: path("list.inner")) == 8, "keys inside inline tables: the enclosing key's line")
    }

    @Test func keyPathsArePrintedAsMessagesWriteThem() {
        #expect(TOMLKeyPath([.key("folders"), .index(1), .key("mode")]).description == "folders[1].mode")
        #expect(TOMLKeyPath([.key("backend"), .key("url")]).description == "backend.url")
        #expect(TOMLKeyPath([.key("a b")]).description == "\"a b\"")
    }
}

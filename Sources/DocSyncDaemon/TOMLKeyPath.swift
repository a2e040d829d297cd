/// A key's place in a TOML document, written as docsync's messages write it:
/// `device`, `backend.url`, `folders[1].mode`.
public struct TOMLKeyPath: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) {
        self.components = components
    }

    public static let root = TOMLKeyPath()

    public func appending(_ key: String) -> TOMLKeyPath { TOMLKeyPath(components + [.key(key)]) }
    public func appending(index: Int) -> TOMLKeyPath { TOMLKeyPath(components + [.index(index)]) }

    /// The path without its last component (the root stays the root).
    public var parent: TOMLKeyPath { TOMLKeyPath(Array(components.dropLast())) }

    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                let bare = !key.isEmpty && key.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
                }
                if !text.isEmpty { text += "." }
                text += bare ? key : quoted(key)
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }
}

import Foundation

/// Every file content a person wrote in a simulation, and what happened to it: which later
/// write replaced it knowingly (its writer had this content on disk at that path), which
/// device deleted it knowingly, and which devices touched it (edited, moved) afterwards.
/// Contents are unique per write, so a content names its write.
struct WriteLedger {
    struct Write {
        let id: Int
        let device: Int
        let path: String
        let content: Data
        /// A later write whose device had this content on disk when it wrote over it.
        var replacedBy: Int?
        /// Devices that deleted it while it was on their disk.
        var deletedBy: Set<Int> = []
        /// Devices that edited or moved it after it was written (the writer included).
        var touchedBy: Set<Int> = []
    }

    private(set) var writes: [Write] = []
    private var byContent: [Data: Int] = [:]

    var nextID: Int { writes.count + 1 }

    /// The write whose content this is, if a person wrote it.
    func write(of content: Data) -> Int? { byContent[content] }

    /// Records a new write of `content` by `device`, replacing `previous` (the content that
    /// was at the path on that device's disk, if any).
    mutating func record(device: Int, path: String, content: Data, previous: Data?) {
        let id = nextID
        writes.append(Write(id: id, device: device, path: path, content: content))
        byContent[content] = id
        if let previous, let old = byContent[previous] {
            writes[old - 1].replacedBy = writes[old - 1].replacedBy ?? id
            writes[old - 1].touchedBy.insert(device)
        }
    }

    /// `device` deleted the file holding `content`.
    mutating func deleted(_ content: Data, by device: Int) {
        guard let id = byContent[content] else { return }
        writes[id - 1].deletedBy.insert(device)
    }

    /// `device` moved (or otherwise changed the place of) the file holding `content`.
    mutating func touched(_ content: Data, by device: Int) {
        guard let id = byContent[content] else { return }
        writes[id - 1].touchedBy.insert(device)
    }
}

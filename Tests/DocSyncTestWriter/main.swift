// A second process for the multi-process tests of the embedded backend: opens the backend
// directory it is given and writes records into one zone while other processes do too.
//
// usage: docsync-test-writer DIR ZONE PREFIX COUNT COUNTER_RECORD_NAME
//   saves COUNT folder records named PREFIX-0 … in batches of 10, and after each batch bumps
//   the shared counter record (path "counter-N"), re-reading it on serverRecordChanged.
import DocSyncCore
import DocSyncPlatform
import DocSyncStorage
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 6, let count = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: docsync-test-writer DIR ZONE PREFIX COUNT COUNTER_RECORD_NAME\n".utf8))
    exit(2)
}
let zone = ZoneID(arguments[2])
let prefix = arguments[3]
let counterID = RecordID(zone: zone, recordName: arguments[5])

do {
    let backend = try LocalBackend(directory: URL(fileURLWithPath: arguments[1]))
    try await backend.createZone(zone)
    var written = 0
    while written < count {
        let batch = (written..<min(written + 10, count)).map { index in
            Record(id: RecordID(zone: zone, recordName: "\(prefix)-\(index)"), type: .folder,
                   path: RelativePath("\(prefix)/\(index)"), modified: .now, mode: 0o755, lastModifiedBy: prefix)
        }
        let result = try await backend.modifyRecords(RecordBatch(zone: zone, saves: batch))
        if let failure = result.partialFailure { throw failure }
        written += batch.count
        while true {
            guard var counter = try await backend.fetchRecords([counterID])[counterID] else { throw SyncError(.unknownItem, "no counter") }
            let value = Int(counter.path.string.dropFirst("counter-".count))!
            counter.path = RelativePath("counter-\(value + 1)")
            let saved = try await backend.modifyRecords(RecordBatch(zone: zone, saves: [counter]))
            if saved.failed.isEmpty { break }
            guard saved.failed[counterID]?.code == .serverRecordChanged else { throw saved.failed[counterID]! }
        }
    }
    print("wrote \(written)")
} catch {
    FileHandle.standardError.write(Data("docsync-test-writer: \(error)\n".utf8))
    exit(1)
}

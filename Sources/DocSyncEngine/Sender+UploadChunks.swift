import DocSyncCore
import DocSyncStorage
import Foundation
import GRDB

/// Uploading the chunks and manifest nodes a page's records name, before the records are saved.
extension Sender {
    /// Uploads the chunks and manifest nodes of `rows` that the backend lacks. Chunks of
    /// content in `justRead` are sent from those bytes; others are read back from their file
    /// and checked to still hash to their digest. `knownStored` are digests the backend is
    /// known to hold (chunks of acknowledged content): they are neither asked about nor sent.
    /// Returns the record names whose file changed meanwhile (they are read again later).
    ///
    /// In an encrypted folder (SPEC §13) each data chunk is checked to be named by the current
    /// epoch's MAC (a file read under an earlier epoch counts as changed: it is read again
    /// and named anew) and sealed before it travels; manifest nodes travel in the clear.
    func uploadChunks(for rows: [IndexItem], justRead: [String: ReadContent],
                              knownStored: Set<SHA256Digest>) async throws(SyncError) -> Set<String> {
        guard !rows.isEmpty else { return [] }
        let sealing = try engine.sealingKeys()
        let zone = configuration.zone
        // Bytes just read are named by their epoch's keys: usable as read while that is still
        // the current epoch, else the file counts as changed and is read and named anew.
        struct Piece: Sendable { var recordName: String; var path: String; var offset: Int64; var length: Int; var bytes: Data?; var epoch: UInt32? }
        // Each chunk's first place, in the order of the rows and of the chunks in each file:
        // a batch of chunks then reads (and is stored) as runs of adjacent bytes.
        var pieces: [(digest: SHA256Digest, piece: Piece)] = []
        var nodes: [SHA256Digest: Data] = [:]
        var changed = Set<String>()
        let stored = try readIndex { db in
            var located: [String: [ChunkRef]] = [:]
            for row in rows where justRead[row.recordName] == nil { located[row.recordName] = try db.recordedChunks(of: row.recordName) }
            return located
        }
        let chunkCount = rows.reduce(0) { $0 + (justRead[$1.recordName]?.chunks.count ?? stored[$1.recordName]?.count ?? 0) }
        var seen = Set<SHA256Digest>(minimumCapacity: chunkCount)
        pieces.reserveCapacity(chunkCount)
        for row in rows {
            let content = justRead[row.recordName]
            let refs = content?.chunks ?? stored[row.recordName] ?? []
            guard let digest = row.digest, refs.reduce(Int64(0), { $0 + Int64($1.length) }) == row.size else {
                changed.insert(row.recordName)
                continue
            }
            let (reference, treeNodes) = ManifestTree.build(AssetManifest(chunks: refs, contentDigest: digest))
            guard reference == row.asset else {
                changed.insert(row.recordName)
                continue
            }
            for node in treeNodes { nodes[node.ref.digest] = node.bytes }
            let path = absolute(row.path)
            var offset: Int64 = 0
            for ref in refs {
                if seen.insert(ref.digest).inserted {
                    // A slice shares the file's buffer: no copy.
                    let bytes = content?.bytes.map { $0[Int(offset)..<Int(offset) + ref.length] }
                    pieces.append((ref.digest, Piece(recordName: row.recordName, path: path, offset: offset, length: ref.length, bytes: bytes,
                                                     epoch: content?.epoch)))
                }
                offset += Int64(ref.length)
            }
        }
        var missing = Set<SHA256Digest>(minimumCapacity: pieces.count)
        let wanted = pieces.map(\.digest).filter { !knownStored.contains($0) } + nodes.keys.filter { !knownStored.contains($0) }
        for start in stride(from: 0, to: wanted.count, by: 4000) {
            missing.formUnion(try await backend.missingChunks(Array(wanted[start..<min(start + 4000, wanted.count)])))
        }
        // Manifest nodes are small: they travel together, in one request (one pack) at most.
        let missingNodes = nodes.filter { missing.contains($0.key) }.map { ChunkUpload(digest: $0.key, bytes: $0.value, isVerified: true) }
        if !missingNodes.isEmpty { try await backend.uploadChunks(missingNodes) }
        // Chunks travel in batches (one flush or one request each), a few batches at once.
        // A batch is cut at 8 MB, which at about 6.8 KiB a chunk is some 1,200 chunks (and at
        // 4,096 chunks of tiny files): each batch costs a pack, its flush and a transaction
        // over the backend's digest index (or one request), so fewer, fuller batches cost
        // less than many small ones.
        var batches: [[(SHA256Digest, Piece)]] = [[]]
        var batchBytes = 0
        for (digest, piece) in pieces where missing.contains(digest) {
            if batches[batches.count - 1].count >= 4096 || batchBytes >= 8 << 20 {
                batches.append([])
                batchBytes = 0
            }
            batches[batches.count - 1].append((digest, piece))
            batchBytes += piece.length
        }
        let backend = self.backend
        let width = environment.serial ? 1 : max(1, min(configuration.transferConcurrency, 4))
        var totals: [String: Int] = [:]
        for batch in batches { for (_, piece) in batch { totals[piece.recordName, default: 0] += piece.length } }
        typealias BatchResult = Result<(changed: Set<String>, sent: [String: Int]), SyncError>
        let outcome: Result<Set<String>, SyncError> = await withTaskGroup(of: BatchResult.self) { group in
            var changedNames = Set<String>()
            var sentSoFar: [String: Int] = [:]
            var failure: SyncError?
            var next = 0
            func add() {
                guard next < batches.count else { return }
                let batch = batches[next]
                next += 1
                group.addTask {
                    var uploads: [ChunkUpload] = []
                    var changed = Set<String>()
                    var sent: [String: Int] = [:]
                    for (digest, piece) in batch {
                        sent[piece.recordName, default: 0] += piece.length
                        if let bytes = piece.bytes, piece.epoch == sealing?.epoch {
                            uploads.append(.dataChunk(digest, bytes, sealedWith: sealing, zone: zone))  // hashed when read
                            continue
                        }
                        // Read back from the file: if it no longer hashes right, the file changed.
                        guard piece.bytes == nil,
                              let data = ContentReader.readRange(piece.path, offset: piece.offset, length: piece.length, in: self.fileSystem),
                              sealing.map({ $0.chunkID(of: data) }) ?? SHA256Digest(hashing: data) == digest else {
                            changed.insert(piece.recordName)
                            continue
                        }
                        uploads.append(.dataChunk(digest, data, sealedWith: sealing, zone: zone))
                    }
                    do throws(SyncError) {
                        if !uploads.isEmpty { try await backend.uploadChunks(uploads) }
                        return .success((changed, sent))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            for _ in 0..<width { add() }
            while let result = await group.next() {
                switch result {
                case .success(let batch):
                    changedNames.formUnion(batch.changed)
                    for (name, bytes) in batch.sent { sentSoFar[name, default: 0] += bytes }
                    // Progress is worth a write only for files that take more than a batch.
                    noteUploadProgress(sentSoFar.filter { batch.sent[$0.key] != nil && totals[$0.key, default: 0] > SentRowWrites.progressThreshold }, of: totals)
                case .failure(let error): failure = failure ?? error
                }
                if failure == nil { add() }
            }
            if let failure { return .failure(failure) }
            return .success(changedNames)
        }
        changed.formUnion(try outcome.get())
        // The others are marked `chunksUploaded` when their record is saved (`settleItem`);
        // one whose save fails asks the backend about its chunks again, which is cheap.
        if !changed.isEmpty {
            try writeIndex { db in
                let reread = try db.cachedStatement(sql: "UPDATE item SET needsRead = 1, chunksUploaded = 0 WHERE recordName = ?")
                for name in changed { try reread.execute(arguments: [name]) }
            }
        }
        return changed
    }

    /// Sets `percentUploaded` of each record in `sent` from the bytes of its missing chunks sent so far.
    func noteUploadProgress(_ sent: [String: Int], of totals: [String: Int]) {
        _ = try? index.write { db in
            let statement = try db.cachedStatement(sql: "UPDATE item SET percentUploaded = ? WHERE recordName = ?")
            for (name, bytes) in sent {
                guard let total = totals[name], total > 0 else { continue }
                try statement.execute(arguments: [min(100, Double(bytes) * 100 / Double(total)), name])
            }
        }
    }
}

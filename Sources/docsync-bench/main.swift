import DocSyncCore
import Foundation
let size = 8_000_000
var data = [UInt8](repeating: 0, count: size)
var s: UInt64 = 7
for i in 0..<size { s = s &* 6364136223846793005 &+ 1442695040888963407; data[i] = UInt8(truncatingIfNeeded: s >> 33) }
let chunker = AssetChunker()
let base = data.withUnsafeBytes { chunker.chunk($0) }
let old = Set(base.chunks.map(\.digest))
var hist = [Int: Int]()
var maxBytes = 0
for e in 0..<500 {
    s = s &* 6364136223846793005 &+ 1442695040888963407
    let pos = Int(s >> 20) % size
    var d2 = data
    let kind = e % 3
    if kind == 0 { d2.insert(UInt8(e & 255), at: pos) } else if kind == 1 { d2.remove(at: pos) } else { d2.insert(contentsOf: [1,2,3,4,5,6,7,8], at: pos) }
    let m = d2.withUnsafeBytes { chunker.chunk($0) }
    let fresh = m.chunks.filter { !old.contains($0.digest) }
    hist[fresh.count, default: 0] += 1
    maxBytes = max(maxBytes, fresh.reduce(0) { $0 + $1.length })
}
print(hist.sorted { $0.key < $1.key }, "max new bytes", maxBytes)

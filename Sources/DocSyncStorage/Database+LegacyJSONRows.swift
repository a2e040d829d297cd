import DocSyncCore
import Foundation
import GRDB

extension Database {
    /// Rewrites, in a migration, each value of `column` in `table` that is a legacy JSON row
    /// (`CompactCoding.isLegacyJSON`) as `convert` gives it, a thousand rows at a time in
    /// the order of `key` (columns that name one row). A value `convert` cannot read (a
    /// damaged row) is left as it was and counted; reading it later fails as it did before.
    /// With `replacing`, a rewritten row that now equals another (`column` is part of the
    /// key) takes its place. Returns how many values were rewritten and how many left.
    @discardableResult
    public func rewriteLegacyJSON(in table: String, column: String, key: [String], replacing: Bool = false,
                                  _ convert: (Data) throws -> Data) throws -> (rewritten: Int, unreadable: Int) {
        let keyList = key.joined(separator: ", ")
        let matchesKey = key.map { "\($0) = ?" }.joined(separator: " AND ")
        let isJSON = "substr(\(column), 1, 1) = X'7B'"
        let update = try makeStatement(sql: "UPDATE \(replacing ? "OR REPLACE " : "")\(table) SET \(column) = ? WHERE \(matchesKey)")
        var after: [DatabaseValue]?
        var rewritten = 0, unreadable = 0
        while true {
            let rows: [Row]
            if let after {
                rows = try Row.fetchAll(self, sql: """
                    SELECT \(keyList), \(column) FROM \(table) WHERE \(isJSON) AND (\(keyList)) > (\(key.map { _ in "?" }.joined(separator: ", ")))
                    ORDER BY \(keyList) LIMIT 1000
                    """, arguments: StatementArguments(after))
            } else {
                rows = try Row.fetchAll(self, sql: "SELECT \(keyList), \(column) FROM \(table) WHERE \(isJSON) ORDER BY \(keyList) LIMIT 1000")
            }
            guard let last = rows.last else { return (rewritten, unreadable) }
            for row in rows {
                let keyValues = (0..<key.count).map { row[$0] as DatabaseValue }
                guard let converted = try? convert(row[key.count] as Data) else {
                    unreadable += 1
                    continue
                }
                try update.execute(arguments: StatementArguments([converted.databaseValue] + keyValues))
                rewritten += 1
            }
            after = (0..<key.count).map { last[$0] as DatabaseValue }
        }
    }
}

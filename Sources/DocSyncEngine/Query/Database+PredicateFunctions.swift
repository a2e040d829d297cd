import DocSyncCore
import GRDB

extension Database {
    /// Registers on this connection the SQL functions that `PredicateSQL` output calls
    /// (`docsync_fold`, `docsync_like`, `docsync_matches`), implemented by
    /// `PredicateSQLFunction`. `LocalIndex` does it for each of its connections; a connection
    /// that runs compiled predicates without it fails with "no such function".
    public func addPredicateFunctions() {
        for function in PredicateSQLFunction.allCases {
            add(function: DatabaseFunction(function.name, argumentCount: function.argumentCount, pure: true) { values in
                let arguments = values.map { value -> SQLArgument in
                    switch value.storage {
                    case .null: .null
                    case .int64(let integer): .integer(integer)
                    case .double(let double): .double(double)
                    case .string(let string): .text(string)
                    case .blob(let data): .text(String(decoding: data, as: UTF8.self))
                    }
                }
                switch try function.call(arguments) {
                case .null: return DatabaseValue.null
                case .integer(let integer): return integer
                case .double(let double): return double
                case .text(let text): return text
                }
            })
        }
    }
}

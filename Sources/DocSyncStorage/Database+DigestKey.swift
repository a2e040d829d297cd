import DocSyncCore
import Foundation
import GRDB

extension Database {
    /// Adds the SQL function `digestKey(blob)` to this connection: the `SHA256Digest.indexKey`
    /// of a 32-byte digest, NULL for anything else. Migrations use it to fill the key column
    /// of tables that already hold digests.
    public func addDigestKeyFunction() {
        add(function: DatabaseFunction("digestKey", argumentCount: 1, pure: true) { values in
            guard let blob = Data.fromDatabaseValue(values[0]), let digest = SHA256Digest(bytes: blob) else { return nil }
            return digest.indexKey
        })
    }
}

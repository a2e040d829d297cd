import Foundation

/// A file holding an access key and a secret key, one setting a line, in any of these forms:
///
///     access_key = AKIA...           secret_key = ...
///     aws_access_key_id = AKIA...    aws_secret_access_key = ...
///     S3_ACCESS_KEY=AKIA...          S3_SECRET_KEY=...          (also with `export ` before)
///     AWS_ACCESS_KEY_ID=AKIA...      AWS_SECRET_ACCESS_KEY=...
///
/// Names are matched without regard to case; values may be quoted with `"` or `'`. Blank
/// lines, lines starting with `#` or `;`, `[section]` lines and other names are ignored (so
/// an environment file with more settings, or an AWS credentials file with one profile, can
/// be used as it is). A key given twice with different values is refused rather than guessed.
enum S3CredentialsFile {
    static let accessNames: Set<String> = ["access_key", "aws_access_key_id", "s3_access_key"]
    static let secretNames: Set<String> = ["secret_key", "aws_secret_access_key", "s3_secret_key"]

    static func read(path: String) throws(S3Error) -> (accessKey: String, secretKey: String) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw S3Error(.invalidConfiguration, "cannot read the S3 credentials file \(path) (\(error.localizedDescription)); give a readable file with access_key = … and secret_key = … lines")
        }
        return try parse(text, path: path)
    }

    static func parse(_ text: String, path: String) throws(S3Error) -> (accessKey: String, secretKey: String) {
        var access: String?
        var secret: String?
        for (number, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            var line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") || line.hasPrefix("[") { continue }
            if line.hasPrefix("export ") { line = String(line.dropFirst(7)).trimmingCharacters(in: .whitespaces) }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            let isAccess = accessNames.contains(name)
            guard isAccess || secretNames.contains(name) else { continue }
            let previous = isAccess ? access : secret
            if let previous, previous != value {
                throw S3Error(.invalidConfiguration, "the S3 credentials file \(path) gives the \(isAccess ? "access" : "secret") key twice, differently (line \(number + 1)); keep one")
            }
            if isAccess { access = value } else { secret = value }
        }
        guard let access, !access.isEmpty else {
            throw S3Error(.invalidConfiguration, "the S3 credentials file \(path) has no access key; add a line access_key = …")
        }
        guard let secret, !secret.isEmpty else {
            throw S3Error(.invalidConfiguration, "the S3 credentials file \(path) has no secret key; add a line secret_key = …")
        }
        return (access, secret)
    }
}

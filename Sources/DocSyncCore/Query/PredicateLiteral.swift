/// How the predicate language writes string literals.
enum PredicateLiteral {
    /// `string` in double quotes, with `\\`, `\"`, `\n`, `\r`, `\t` and `\u{…}` (other control
    /// characters) escaped, so the tokenizer reads it back to the same scalars.
    static func quoted(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\\": text += "\\\\"
            case "\"": text += "\\\""
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    text += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text + "\""
    }
}

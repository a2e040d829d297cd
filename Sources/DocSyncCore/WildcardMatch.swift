/// Matching a pattern's tokens, some of which take any run of elements, against a whole
/// sequence of elements (a glob's against characters or bytes, a LIKE pattern's against
/// scalars).
///
/// The classic two-pointer algorithm: on a mismatch, go back to the last run token and let
/// it take one more element. Each run token only ever moves forward, so the work is at most
/// tokens × elements — never exponential, however many run tokens the pattern has.
enum WildcardMatch {
    /// True when `tokens` match the whole of `elements`. `isRun` tells a token that takes any
    /// run (none included); `matchesOne` whether another token takes one element.
    @inline(__always)
    static func matches<Token, Elements: RandomAccessCollection>(
        _ tokens: [Token], _ elements: Elements, isRun: (Token) -> Bool, matchesOne: (Token, Elements.Element) -> Bool
    ) -> Bool where Elements.Index == Int {
        let base = elements.startIndex
        var t = 0, s = 0
        var runToken = -1, runStart = 0
        while s < elements.count {
            if t < tokens.count, isRun(tokens[t]) {
                runToken = t
                runStart = s
                t += 1
            } else if t < tokens.count, matchesOne(tokens[t], elements[base + s]) {
                t += 1
                s += 1
            } else if runToken >= 0 {
                t = runToken + 1
                runStart += 1
                s = runStart
            } else {
                return false
            }
        }
        while t < tokens.count, isRun(tokens[t]) { t += 1 }
        return t == tokens.count
    }
}

import Foundation
import Testing

/// DocSyncCore stays pure (ARCHITECTURE, "Low-level code has one home"): it reads no clock
/// (callers pass the time in), maps no memory and tunes no allocator; that code lives in
/// DocSyncPlatform. These tests read the core's sources and fail on the first call that
/// breaks the rule, naming the file and line.
@Suite struct CorePurityTests {
    /// What the core must not do, each with the reason a person reading a failure needs.
    static let forbidden: [(pattern: String, why: String)] = [
        (#"\bDate\(\)"#, "reads the wall clock: take a Timestamp parameter instead"),
        (#"\.now\b"#, "reads a clock (Timestamp.now, ContinuousClock.now, DispatchTime.now()…): take the time as a parameter"),
        (#"\btimeIntervalSinceNow\b"#, "reads the wall clock: take the time as a parameter"),
        (#"\b(clock_gettime|gettimeofday|CFAbsoluteTimeGetCurrent)\b"#, "reads a clock: take the time as a parameter"),
        (#"\btime\(nil\)"#, "reads the wall clock: take the time as a parameter"),
        (#"\.measure\s*\{"#, "reads a clock to time work: time it in the caller"),
        (#"\b(mmap|munmap|madvise|mprotect)\s*\("#, "maps memory: that belongs in DocSyncPlatform (BufferPool)"),
        (#"\b(mallopt|malloc_trim)\b"#, "tunes the allocator: that belongs in DocSyncPlatform (ServiceMemory)"),
        (#"@_silgen_name"#, "declares a C function by hand: system calls belong in DocSyncPlatform"),
        (#"^\s*import\s+(Glibc|Darwin|Musl)\b"#, "imports the C library: system code belongs in DocSyncPlatform"),
    ]

    /// Each offending line of `source`, as "line N: what", reading its code only (comments
    /// and the contents of string literals are left out).
    static func violations(in source: String) -> [String] {
        var found: [String] = []
        for (number, code) in codeOnly(source).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for rule in forbidden where code.range(of: rule.pattern, options: .regularExpression) != nil {
                found.append("line \(number + 1): \(rule.why): \(code.trimmingCharacters(in: .whitespaces))")
            }
        }
        return found
    }

    /// `source` with comments (`//`, `/* */`) and the contents of string literals (`"…"`,
    /// `"""…"""`) turned into spaces, line breaks kept; an interpolation (`\(…)`) is code.
    static func codeOnly(_ source: String) -> String {
        enum State { case code, lineComment, blockComment, string, multilineString }
        let characters = Array(source)
        var output: [Character] = []
        output.reserveCapacity(characters.count)
        var state = State.code
        // Inside an interpolation: the string it interrupts and the parentheses still open.
        var interpolated: (string: State, depth: Int)?
        var index = 0
        func at(_ offset: Int) -> Character? { index + offset < characters.count ? characters[index + offset] : nil }
        while index < characters.count {
            let character = characters[index]
            let blank: Character = character == "\n" ? "\n" : " "
            switch state {
            case .code:
                if var open = interpolated, character == "(" || character == ")" {
                    open.depth += character == "(" ? 1 : -1
                    interpolated = open.depth == 0 ? nil : open
                    if open.depth == 0 { state = open.string }
                    output.append(character)
                }
                else if character == "/", at(1) == "/" { state = .lineComment; output.append(" ") }
                else if character == "/", at(1) == "*" { state = .blockComment; output.append(" ") }
                else if character == "\"", at(1) == "\"", at(2) == "\"" { state = .multilineString; output += ["\"", "\"", "\""]; index += 2 }
                else if character == "\"" { state = .string; output.append(character) }
                else { output.append(character) }
            case .lineComment:
                if character == "\n" { state = .code }
                output.append(blank)
            case .blockComment:
                if character == "*", at(1) == "/" { state = .code; output += [" ", " "]; index += 1 } else { output.append(blank) }
            case .string, .multilineString:
                if character == "\\", at(1) == "(" { interpolated = (state, 1); state = .code; output += [" ", "("]; index += 1 }
                else if character == "\\" { output += [" ", at(1) == "\n" ? "\n" : " "]; index += 1 }
                else if state == .string, character == "\"" { state = .code; output.append(character) }
                else if state == .multilineString, character == "\"", at(1) == "\"", at(2) == "\"" { state = .code; output += ["\"", "\"", "\""]; index += 2 }
                else { output.append(blank) }
            }
            index += 1
        }
        return String(output)
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theCoreSourcesReadNoClockAndCallNoPlatformCode() throws {
        let sources = Self.packageRoot.appendingPathComponent("Sources/DocSyncCore")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50, "the core's sources were not found under \(sources.path)")
        for file in files.sorted() {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            let found = Self.violations(in: text)
            #expect(found.isEmpty, "Sources/DocSyncCore/\(file):\n\(found.joined(separator: "\n"))")
        }
    }

    @Test func theCoreDependsOnSwiftCryptoAlone() throws {
        let manifest = try String(contentsOf: Self.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let target = try #require(manifest.range(of: #"name: "DocSyncCore",\s*dependencies: \[[^\]]*\]"#, options: .regularExpression),
                                  "Package.swift declares no DocSyncCore target with its dependencies")
        #expect(manifest[target].hasSuffix(#"dependencies: [.product(name: "Crypto", package: "swift-crypto")]"#),
                "DocSyncCore may depend on swift-crypto only: \(manifest[target])")
    }

    /// The scan itself: what it must catch and what it must let through.
    @Test(arguments: [
        ("let now = Timestamp.now", true),
        ("state.lastUse = .now", true),
        ("let start = ContinuousClock.now", true),
        ("queue.asyncAfter(deadline: .now() + 1) {}", true),
        ("let date = Date()", true),
        ("clock_gettime(CLOCK_REALTIME, &now)", true),
        ("let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, -1, 0)", true),
        ("_ = madvise(p, size, MADV_HUGEPAGE)", true),
        ("mallopt(-3, 4 << 20)", true),
        ("@_silgen_name(\"malloc_trim\")", true),
        ("import Glibc", true),
        ("func decide(now: Timestamp) -> Bool {", false),
        ("/// `Timestamp.now` (DocSyncPlatform) reads the clock", false),
        ("let x = 1 // not Date()", false),
        ("let url = \"http://host/a.now\"", false),
        ("let sql = \"\"\"\nSELECT 1 -- Date() .now\n\"\"\"", false),
        ("let a = 1 /* Date() */ + 2", false),
        ("let text = \"\\(Date())\"", true),
        ("let text = \"at \\(x.f(1)) .now\"", false),
        ("let known = nowhere + snow", false),
        ("let date = Date(timeIntervalSince1970: 5)", false),
    ])
    func theScanCatchesClockAndPlatformCallsOnly(line: String, flagged: Bool) {
        #expect(Self.violations(in: line).isEmpty != flagged, "\(line)")
    }
}

/// Lets the options every call of a command shares (`docs-status --json`, `--socket PATH`)
/// stand before the call's name as well as after it (SPEC §7: `docs-status --json ls` is
/// `docs-status ls --json`).
///
/// argument-parser reads an option only after the subcommand that declares it; this moves
/// shared options written before the call's name to just after it. Nothing else moves:
/// arguments after the call's name, after `--`, or before it but not shared, stay where
/// they are (and fail as they would have).
public struct SharedOptionPlacement: Sendable {
    /// The call names (subcommands) of the command.
    public let calls: Set<String>
    /// Shared options that take a value (`--socket PATH`, or `--socket=PATH`).
    public let valued: Set<String>
    /// Shared flags (`--json`).
    public let flags: Set<String>

    public init(calls: Set<String>, valued: Set<String>, flags: Set<String>) {
        self.calls = calls
        self.valued = valued
        self.flags = flags
    }

    /// `arguments` (without the program's name) with the shared options found before the
    /// first call name moved to just after it. Without a call name, unchanged.
    public func reordered(_ arguments: [String]) -> [String] {
        var moved: [String] = []
        var kept: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if calls.contains(argument) {
                return kept + [argument] + moved + arguments[(index + 1)...]
            }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if flags.contains(argument) {
                moved.append(argument)
            } else if valued.contains(name), argument.contains("=") {
                moved.append(argument)
            } else if valued.contains(argument), index + 1 < arguments.count {
                moved += [argument, arguments[index + 1]]
                index += 1
            } else {
                kept.append(argument)
            }
            index += 1
        }
        return arguments
    }
}

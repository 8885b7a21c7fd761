import ArgumentParser

/// Refuses an option or flag given twice. Every option of `fm` takes one value, and ArgumentParser keeps the last:
/// `--file a.txt --file b.txt` would tag `b.txt` alone and `-o one -o two` write only `two`, with no word said.
enum RepeatedOptions {
    /// The long names of the short spellings, so `-o x --output y` counts as one option given twice.
    static let longNames = ["-o": "--output", "-q": "--quiet"]

    /// Throws a `ValidationError` naming the first option that `arguments` (the command line after the
    /// executable's name) gives more than once. Arguments after `--` are texts, and a negative number is a value.
    static func check(_ arguments: [String]) throws {
        var seen: Set<String> = []
        for argument in arguments {
            if argument == "--" { break }
            guard argument.hasPrefix("-"), argument.count > 1, Double(argument) == nil else { continue }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            let option = longNames[name] ?? name
            if !seen.insert(option).inserted {
                throw ValidationError("\(option) is given more than once; give it once (an option keeps one value, and a flag says it once).")
            }
        }
    }
}

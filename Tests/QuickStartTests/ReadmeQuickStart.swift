import Foundation

/// The README's Quick start, read from the README itself so that the test follows the text a user follows.
///
/// The section's files are the fenced code blocks introduced by a line that names a relative path in
/// backticks and ends with a colon (`` `Package.swift`: ``); its commands are the lines of its `sh` blocks,
/// without their comments.
struct ReadmeQuickStart {
    /// The files to create, by path relative to the new package.
    var files: [(path: String, contents: String)] = []
    /// The shell commands, in order.
    var commands: [String] = []

    /// Parses the section headed `## Quick start` of `readme`.
    init(readme: String) {
        let lines = readme.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "## Quick start") else { return }
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") } ?? lines.endIndex
        var index = start + 1
        var introduction = ""
        while index < end {
            let line = lines[index]
            guard line.hasPrefix("```") else {
                if !line.trimmingCharacters(in: .whitespaces).isEmpty { introduction = line }
                index += 1
                continue
            }
            let language = line.dropFirst(3).trimmingCharacters(in: .whitespaces)
            let close = lines[(index + 1)..<end].firstIndex { $0.hasPrefix("```") } ?? end
            let body = lines[(index + 1)..<close]
            if language == "sh" {
                commands += body.map { $0.components(separatedBy: "#")[0].trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty }
            } else if let path = Self.path(introducing: introduction) {
                files.append((path, body.joined(separator: "\n") + "\n"))
            }
            introduction = ""
            index = close + 1
        }
    }

    /// The relative path that a line such as `` `Sources/App/main.swift`: `` names, if it is such a line.
    static func path(introducing line: String) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("`"), trimmed.hasSuffix("`:") else { return nil }
        let path = String(trimmed.dropFirst().dropLast(2))
        guard !path.isEmpty, !path.contains("`"), !path.hasPrefix("/"), !path.contains("..") else { return nil }
        return path
    }
}

import ArgumentParser
import Foundation

/// Where `--html` reports and `fm tag --output` files go.
enum ReportFile {
    /// Fails when `path` cannot be written — its directory does not exist, it is a directory, or it (or the
    /// directory it would be made in) is read-only, or it is one of the command's `inputs` (what the input is,
    /// and its path) that writing would overwrite — before any model time is spent.
    static func validate(_ path: String, option: String, inputs: [(name: String, path: String?)] = []) throws {
        // `URL(fileURLWithPath:)` reads "" as the working directory and drops a trailing slash, so both would
        // pass the checks below and fail (or write a file named like the directory) after the model's work.
        if path.isEmpty { throw ValidationError("\(option) needs a file name, not an empty path.") }
        // Elsewhere `-` is a standard stream; here it would silently be a file named "-".
        if path == "-" { throw ValidationError("\(option) needs a file name; - (standard output) is not one here, and ./- names a file called -.") }
        if path.hasSuffix("/") { throw ValidationError("\(option): \(path) is a directory; give a file name.") }
        for input in inputs {
            guard let inputPath = input.path, InputFile.isSameFile(inputPath, path) else { continue }
            throw ValidationError("\(option) \(path) is the \(input.name); writing would overwrite it.")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("\(option): no directory \(directory).")
        }
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists, isDirectory.boolValue {
            throw ValidationError("\(option): \(path) is a directory; give a file name.")
        }
        guard FileManager.default.isWritableFile(atPath: exists ? path : directory) else {
            throw ValidationError("\(option): \(exists ? path : "the directory " + directory) is not writable.")
        }
    }

    /// Writes a page, saying so on stderr.
    static func write(_ html: String, to path: String) throws {
        // `/dev/stdout` (or the file stdout was sent to) is written through stdout itself, after the summary
        // `print` has buffered: opening it again would write at offset 0 over the command's own output, or
        // truncate a file the shell opened for appending.
        if InputFile.isStandardOutput(path) {
            try Console.flush()
            try Console.write(html)
        } else {
            try save(Data(html.utf8), to: path)
        }
        Console.note("wrote \(path)\n")
    }

    /// Writes `data` to `path`: atomically (a temporary file renamed over the path) where that can be done; a
    /// pipe, a device, a link (written through, not replaced) or a writable file in a read-only directory in place.
    static func save(_ data: Data, to path: String) throws {
        do {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            let atomic = !InputFile.exists(path)
                || (InputFile.isRegularFile(path, followingLinks: false) && FileManager.default.isWritableFile(atPath: directory))
            try data.write(to: URL(fileURLWithPath: path), options: atomic ? .atomic : [])
        } catch {
            throw CommandFailure("Cannot write \(path): \(InputFile.reason(error))")
        }
    }
}

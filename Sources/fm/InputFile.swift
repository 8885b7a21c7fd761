import Foundation

/// Files the user names on the command line (`--file`, `--schema`, `--examples`, `--predictions`, …).
enum InputFile {
    /// The whole of `path`. Read through a file handle rather than `Data(contentsOf:)`, which on Linux refuses
    /// pipes, so `--schema <(jq … s.json)` and named pipes work as they do for every other command-line tool.
    static func read(_ path: String) throws -> Data {
        try contents(named: path) {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            return try handle.readToEnd()
        }
    }

    /// All of standard input. Foundation's `readDataToEndOfFile()` traps on a read error (stdin a directory,
    /// closed, or a terminal that went away); this throws the reason instead.
    static func readStandardInput(expecting what: String) throws -> Data {
        noteIfTerminal(expecting: what)
        return try contents(named: "standard input") { try FileHandle.standardInput.readToEnd() }
    }

    /// Says that standard input is read when it is a terminal: the command would otherwise wait without a word
    /// for input the user may not know it wants.
    static func noteIfTerminal(expecting what: String) {
        if isatty(STDIN_FILENO) == 1 { Console.note("Reading \(what) from the terminal; end with Ctrl-D.\n") }
    }

    /// The refusal of text in UTF-16 or UTF-32 (`encoding`), with the command that converts it.
    static func wideTextFailure(_ name: String, encoding: String) -> CommandFailure {
        CommandFailure("Cannot read \(name): it is \(encoding) text; convert it to UTF-8 (for example `iconv -f \(encoding) -t UTF-8`).")
    }

    /// What `read` returns, without a leading byte-order mark; a read error becomes a message naming `name`.
    ///
    /// Text in UTF-16 or UTF-32 (a byte-order mark says so) is refused: read as bytes, every line after the first
    /// would pass for text with a NUL between its letters.
    private static func contents(named name: String, _ read: () throws -> Data?) throws -> Data {
        let data: Data
        do { data = try read() ?? Data() } catch {
            throw CommandFailure("Cannot read \(name): \(reason(error))")
        }
        if let encoding = wideEncoding(of: data) { throw wideTextFailure(name, encoding: encoding) }
        // A byte-order mark (files saved by some Windows editors) is not part of the JSON or text after it.
        return data.starts(with: [0xEF, 0xBB, 0xBF]) ? Data(data.dropFirst(3)) : data
    }

    /// The encoding a UTF-16 or UTF-32 byte-order mark at the start of `data` names, or UTF-16 that its first
    /// bytes show without one; `nil` for any other start.
    static func wideEncoding(of data: Data) -> String? {
        if data.starts(with: [0xFF, 0xFE, 0, 0]) { return "UTF-32LE" }
        if data.starts(with: [0, 0, 0xFE, 0xFF]) { return "UTF-32BE" }
        if data.starts(with: [0xFF, 0xFE]) { return "UTF-16LE" }
        if data.starts(with: [0xFE, 0xFF]) { return "UTF-16BE" }
        // Without a mark: ASCII text in UTF-16 has a NUL in every other byte, which UTF-8 text never has.
        let start = Array(data.prefix(64))
        guard start.count >= 4, start.count % 2 == 0 else { return nil }
        let (even, odd) = (stride(from: 0, to: start.count, by: 2).map { start[$0] }, stride(from: 1, to: start.count, by: 2).map { start[$0] })
        if odd.allSatisfy({ $0 == 0 }), even.allSatisfy({ $0 != 0 }) { return "UTF-16LE" }
        if even.allSatisfy({ $0 == 0 }), odd.allSatisfy({ $0 != 0 }) { return "UTF-16BE" }
        return nil
    }

    /// Whether something (a file, a pipe, a device) is at `path`, following links.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether `path` is a regular file, not a pipe, a device or a directory (nor, when not `followingLinks`,
    /// a link).
    static func isRegularFile(_ path: String, followingLinks: Bool = true) -> Bool {
        var info = stat()
        let found = followingLinks ? stat(path, &info) : lstat(path, &info)
        return found == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether `path` names what stdout already writes to (`/dev/stdout`, or the file stdout was redirected to).
    static func isStandardOutput(_ path: String) -> Bool {
        // `/dev/stdout` is the link to descriptor 1's file, so `stat` through it reaches what stdout writes to.
        isSameFile(path, "/dev/stdout")
    }

    /// The path of the regular file standard output writes to (`fm tag … >> out.jsonl`), read from
    /// `/proc/self/fd/1`; `nil` when stdout is a pipe, a terminal or a device, or the file has no path.
    static func standardOutputFile() -> String? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/1"),
              target.hasPrefix("/"), isRegularFile(target), isSameFile(target, "/dev/stdout") else { return nil }
        return target
    }

    /// `path` with its links followed: the links among its directories, and the file's own, to the file it
    /// names, whether that exists yet or not (a link made before the job that writes its target).
    static func resolvingLinks(_ path: String) -> String {
        var current = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        // The kernel's own bound on links in one lookup, so a loop of links ends.
        for _ in 0..<40 {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { break }
            // A relative target is read from the link's directory; `realpath` below settles its `..`.
            current = target.hasPrefix("/") ? target : URL(fileURLWithPath: current).deletingLastPathComponent().path + "/" + target
        }
        let file = URL(fileURLWithPath: current)
        guard let directory = realpath(file.deletingLastPathComponent().path, nil) else { return current }
        defer { free(directory) }
        return URL(fileURLWithPath: String(cString: directory)).appendingPathComponent(file.lastPathComponent).path
    }

    /// Whether `first` and `second` name one existing file (the same device and inode), through links or
    /// different spellings of the path.
    static func isSameFile(_ first: String, _ second: String) -> Bool {
        var a = stat(), b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// The POSIX reason (“Is a directory”, “Permission denied”) when there is one, not Foundation's wrapper text.
    static func reason(_ error: any Error) -> String {
        let error = error as NSError
        let posix = error.domain == NSPOSIXErrorDomain ? error : error.userInfo[NSUnderlyingErrorKey] as? NSError
        guard let posix, posix.domain == NSPOSIXErrorDomain else { return error.localizedDescription }
        return String(cString: strerror(Int32(posix.code)))
    }
}

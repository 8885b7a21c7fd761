import Foundation

/// Files the user names on the command line (`--file`, `--schema`, `--examples`, `--predictions`, …).
enum InputFile {
    /// The whole of `path`. Read through a file handle rather than `Data(contentsOf:)`, which on Linux refuses
    /// pipes, so `--schema <(jq … s.json)` and named pipes work as they do for every other command-line tool.
    static func read(_ path: String) throws -> Data {
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            return try handle.readToEnd() ?? Data()
        } catch {
            throw CommandFailure("Cannot read \(path): \(reason(error))")
        }
    }

    /// Whether something (a file, a pipe, a device) is at `path`, following links.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether `path` is a regular file (following links), not a pipe, a device or a directory.
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
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

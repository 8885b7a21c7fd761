import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to the standard streams without trapping: Foundation's `FileHandle.write(_:)` traps when a write fails
/// (a full disk, a closed descriptor), where a command should end with a message instead.
enum Console {
    /// Writes `text` to stdout, or throws a ``CommandFailure`` saying why it could not.
    static func write(_ text: String) throws {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
        } catch {
            throw CommandFailure("Cannot write standard output: \(InputFile.reason(error))")
        }
    }

    /// Writes `text` to stderr; a failure there is dropped, since stderr is where it would be reported.
    static func note(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }

    /// Throws when text written with `print` cannot reach stdout: `print` buffers and ignores write errors, so
    /// without this a command whose stdout is a full disk would exit 0 with nothing written. Flushing every
    /// stream (`fflush(NULL)`, which needs no reference to the `stdout` global) fails while output is still
    /// waiting, as it is after a write to a full disk or a closed descriptor; an error that left nothing
    /// waiting (a write that failed once and then succeeded) is not seen here.
    static func flush() throws {
        guard fflush(nil) != 0 else { return }
        throw CommandFailure("Cannot write standard output: \(String(cString: strerror(errno)))")
    }
}

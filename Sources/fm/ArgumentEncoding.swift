import ArgumentParser
import Foundation

/// Refuses a command-line argument that is not UTF-8. Swift reads each argument into a `String`, replacing the
/// bytes it cannot decode with U+FFFD, so a text or file name in another encoding would tag another text, or name
/// a file that does not exist, without a word about why.
enum ArgumentEncoding {
    /// Throws a `ValidationError` naming the first argument after the executable's name that is not UTF-8.
    static func check(_ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = CommandLine.unsafeArgv,
                      count: Int = Int(CommandLine.argc)) throws {
        for index in 1..<max(1, count) {
            guard let argument = argv[index] else { continue }
            let bytes = UnsafeRawBufferPointer(start: argument, count: strlen(argument))
            if String(validating: bytes, as: UTF8.self) == nil {
                throw ValidationError("""
                    Argument \(index) ("\(String(decoding: bytes, as: UTF8.self))") is not UTF-8; convert it, or the file \
                    or text it names, to UTF-8 (for example with `iconv -f LATIN1 -t UTF-8`).
                    """)
            }
        }
    }
}

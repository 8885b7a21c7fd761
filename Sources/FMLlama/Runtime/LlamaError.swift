/// An error from the llama.cpp runtime layer.
///
/// The `code` is a struct over a private enum so new kinds can be added without breaking a
/// caller's `switch`; the message carries the specifics (path, token counts, llama.cpp status).
public struct LlamaError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String { case modelNotFound, modelLoad, contextCreation, tokenization, decode, contextFull, chatTemplate, adapter }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// No file exists at the model path.
        public static var modelNotFound: Code { Code(.modelNotFound) }
        /// llama.cpp could not load the file as a model.
        public static var modelLoad: Code { Code(.modelLoad) }
        /// llama.cpp could not create an inference context.
        public static var contextCreation: Code { Code(.contextCreation) }
        /// Text could not be tokenized.
        public static var tokenization: Code { Code(.tokenization) }
        /// `llama_decode` failed.
        public static var decode: Code { Code(.decode) }
        /// The tokens do not fit in the context window.
        public static var contextFull: Code { Code(.contextFull) }
        /// The chat template could not be applied.
        public static var chatTemplate: Code { Code(.chatTemplate) }
        /// A LoRA adapter could not be loaded or applied.
        public static var adapter: Code { Code(.adapter) }

        /// The code's name.
        public var description: String { kind.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// What happened, with the specifics.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

/// Lets `catch LlamaError.Code.contextFull` match an error by its code.
public func ~= (code: LlamaError.Code, error: any Error) -> Bool {
    (error as? LlamaError)?.code == code
}

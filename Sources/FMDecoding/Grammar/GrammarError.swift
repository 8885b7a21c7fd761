/// A schema the grammar compiler cannot turn into an automaton.
///
/// Thrown at compile time, before any token is generated. The public layer maps it to
/// `GenerationError.unsupportedGuide`. ``construct`` names the offending construct (for example
/// `backreference \1` or `lookahead (?=`), so the message can tell users what to change.
public struct GrammarError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String {
            case unsupportedPattern, invalidPattern, undefinedReference, unsatisfiable, tooLarge, invalidBounds
        }
        private let kind: Kind
        /// The regular expression uses a construct that cannot be compiled (named in ``GrammarError/construct``).
        public static var unsupportedPattern: Code { Code(kind: .unsupportedPattern) }
        /// The regular expression is malformed.
        public static var invalidPattern: Code { Code(kind: .invalidPattern) }
        /// A reference names no definition.
        public static var undefinedReference: Code { Code(kind: .undefinedReference) }
        /// No finite value satisfies the schema (for example required infinite recursion, empty ranges or choices).
        public static var unsatisfiable: Code { Code(kind: .unsatisfiable) }
        /// The automaton would exceed the size limits.
        public static var tooLarge: Code { Code(kind: .tooLarge) }
        /// Numeric or count bounds are inconsistent or out of the supported range.
        public static var invalidBounds: Code { Code(kind: .invalidBounds) }
        /// The code's name.
        public var description: String { kind.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// The construct that caused it, as written in the schema (e.g. `lookahead (?=`).
    public var construct: String
    /// A readable explanation.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, construct: String, _ message: String) {
        self.code = code
        self.construct = construct
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

/// Instructions and tools that a session works out again for every request, from the session's current
/// ``SessionPropertyValues``.
///
/// Compose them like views: ``Instructions`` and tools are the primitives, and your types combine them in
/// a ``body`` that may read ``LanguageModelSession/SessionProperty`` values and branch on them:
///
/// ```swift
/// struct TravelAgent: DynamicInstructions {
///     @SessionProperty(\.isPremiumUser) var isPremium
///
///     var body: some DynamicInstructions {
///         Instructions("You are a travel agent.")
///         if isPremium {
///             Instructions("Offer lounge access.")
///             LoungeFinder()          // a Tool
///         }
///     }
/// }
/// let session = LanguageModelSession(dynamicInstructions: TravelAgent())
/// ```
public protocol DynamicInstructions {
    /// The type of the instructions' body.
    associatedtype Body: DynamicInstructions
    /// The instructions and tools this value stands for.
    @DynamicInstructionsBuilder var body: Self.Body { get }
}

extension DynamicInstructions {
    /// A `ForEach` over data, for instructions built from a collection.
    public typealias ForEach = _DynamicInstructionsForEach
    /// A session property, read while the session works out its instructions.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
}

/// A result builder that composes ``DynamicInstructions`` from instructions, tools and control flow.
@resultBuilder
public struct DynamicInstructionsBuilder {
    /// Accepts a tool: the model may call it while these instructions are active.
    public static func buildExpression<T: Tool>(_ expression: T) -> some DynamicInstructions {
        _ToolInstructions(tools: [expression])
    }

    /// Accepts any dynamic instructions.
    public static func buildExpression<T: DynamicInstructions>(_ expression: T) -> T {
        expression
    }

    /// Accepts a list of tools.
    public static func buildExpression(_ tools: [any Tool]) -> some DynamicInstructions {
        _ToolInstructions(tools: tools)
    }

    /// Combines the components of a block, in order.
    @_disfavoredOverload
    public static func buildBlock<each Content: DynamicInstructions>(_ contents: repeat each Content) -> TupleDynamicInstructions<repeat each Content> {
        TupleDynamicInstructions(repeat each contents)
    }

    /// A block with one component.
    public static func buildBlock<T: DynamicInstructions>(_ content: T) -> T {
        content
    }

    /// An empty block.
    public static func buildBlock() -> EmptyDynamicInstructions {
        EmptyDynamicInstructions()
    }

    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither<TrueContent: DynamicInstructions, FalseContent: DynamicInstructions>(
        first content: TrueContent
    ) -> ConditionalDynamicInstructions<TrueContent, FalseContent> {
        ConditionalDynamicInstructions(.trueContent(content))
    }

    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither<TrueContent: DynamicInstructions, FalseContent: DynamicInstructions>(
        second content: FalseContent
    ) -> ConditionalDynamicInstructions<TrueContent, FalseContent> {
        ConditionalDynamicInstructions(.falseContent(content))
    }

    /// An `if` without `else`: nothing when the condition is false.
    public static func buildOptional<Content: DynamicInstructions>(_ content: Content?) -> Content? {
        content
    }
}

/// Several dynamic instructions, one after the other.
public struct TupleDynamicInstructions<each Content: DynamicInstructions>: DynamicInstructions {
    let contents: (repeat each Content)

    /// Combines the values.
    public init(_ contents: repeat each Content) {
        self.contents = (repeat each contents)
    }

    /// A primitive has no body.
    public var body: Never { fatalError("TupleDynamicInstructions has no body.") }
}

/// One of two dynamic instructions, chosen by an `if`/`else` or `switch`.
public struct ConditionalDynamicInstructions<TrueContent: DynamicInstructions, FalseContent: DynamicInstructions>: DynamicInstructions {
    /// The branch that was taken.
    public enum Branch {
        /// The first branch.
        case trueContent(TrueContent)
        /// The second branch.
        case falseContent(FalseContent)
    }

    let branch: Branch

    /// Wraps the branch that was taken.
    public init(_ branch: Branch) {
        self.branch = branch
    }

    /// A primitive has no body.
    public var body: Never { fatalError("ConditionalDynamicInstructions has no body.") }
}

extension Optional: DynamicInstructions where Wrapped: DynamicInstructions {
    /// A primitive has no body.
    public var body: Never { fatalError("Optional has no body.") }
}

extension Never: DynamicInstructions {
    /// `Never` has no body.
    public var body: Never { fatalError("Never has no body.") }
}

/// No instructions and no tools.
public struct EmptyDynamicInstructions: DynamicInstructions, Sendable {
    /// A primitive has no body.
    public var body: Never { fatalError("EmptyDynamicInstructions has no body.") }

    /// Creates empty instructions.
    public init() {}
}

/// Dynamic instructions repeated for each element of a collection.
///
/// ```swift
/// ForEach(rules, id: \.self) { rule in
///     Instructions(rule)
/// }
/// ```
public struct _DynamicInstructionsForEach<Data: RandomAccessCollection, ID: Hashable, Content: DynamicInstructions>: DynamicInstructions {
    let data: Data
    let content: (Data.Element) -> Content

    /// A primitive has no body.
    public var body: Never { fatalError("ForEach has no body.") }
}

extension _DynamicInstructionsForEach {
    /// Repeats `content` for each element of `data`, identified by `id`.
    public init(_ data: Data, id: KeyPath<Data.Element, ID>, @DynamicInstructionsBuilder content: @escaping (Data.Element) -> Content) {
        self.init(data: data, content: content)
    }
}

extension _DynamicInstructionsForEach where ID == Data.Element.ID, Data.Element: Identifiable {
    /// Repeats `content` for each element of `data`.
    public init(_ data: Data, @DynamicInstructionsBuilder content: @escaping (Data.Element) -> Content) {
        self.init(data: data, content: content)
    }
}

/// Dynamic instructions of any type.
public struct AnyDynamicInstructions: DynamicInstructions {
    let base: any DynamicInstructions

    /// Wraps `dynamicInstructions`.
    public init(_ dynamicInstructions: any DynamicInstructions) {
        base = dynamicInstructions
    }

    /// Wraps `dynamicInstructions`.
    public init(erasing dynamicInstructions: some DynamicInstructions) {
        self.init(dynamicInstructions)
    }

    /// A primitive has no body.
    public var body: Never { fatalError("AnyDynamicInstructions has no body.") }
}

extension Instructions: DynamicInstructions {
    /// Fixed instructions are a primitive: they stand for themselves.
    public var body: some DynamicInstructions { EmptyDynamicInstructions() }
}

/// Tools made available by dynamic instructions.
struct _ToolInstructions: DynamicInstructions {
    let tools: [any Tool]
    var body: Never { fatalError("Tools have no body.") }
}

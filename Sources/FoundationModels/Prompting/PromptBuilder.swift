/// A result builder that assembles ``Prompt`` from representable components.
///
/// Every expression must be a ``PromptRepresentable`` (a `String`, a ``Prompt``, a ``Generable`` value…).
/// `if`, `if`/`else`, `switch`, `for` loops and availability checks are supported. Components are joined
/// with newlines; a false `if` without `else` contributes nothing.
@resultBuilder
public struct PromptBuilder {
    /// Combines the components of a block, in order.
    public static func buildBlock<each Component: PromptRepresentable>(_ components: repeat each Component) -> Prompt {
        Prompt(repeat each components)
    }

    /// Combines the results of a `for` loop, in order.
    public static func buildArray(_ components: [some PromptRepresentable]) -> Prompt {
        Prompt(components)
    }

    /// Produces the result of the first branch of an `if`/`else` or `switch`.
    public static func buildEither(first component: some PromptRepresentable) -> Prompt {
        Prompt(component)
    }

    /// Produces the result of the second branch of an `if`/`else` or `switch`.
    public static func buildEither(second component: some PromptRepresentable) -> Prompt {
        Prompt(component)
    }

    /// Produces the result of an `if` without `else`: empty when the condition is false.
    public static func buildOptional(_ component: Prompt?) -> Prompt {
        component ?? Prompt()
    }

    /// Produces the result of an `if #available` block.
    public static func buildLimitedAvailability(_ component: some PromptRepresentable) -> Prompt {
        Prompt(component)
    }

    /// Accepts any representable expression.
    @_disfavoredOverload
    public static func buildExpression<Component: PromptRepresentable>(_ expression: Component) -> Component {
        expression
    }

    /// Accepts a ``Prompt`` expression.
    public static func buildExpression(_ expression: Prompt) -> Prompt {
        expression
    }

    /// Rejects expressions that aren't representable, with a clear diagnostic.
    @available(*, unavailable, message: "Only `Prompt` and `PromptRepresentable` are supported.")
    public static func buildExpression<T>(_ expression: T) -> Prompt {
        fatalError("Unreachable: this overload is unavailable.")
    }
}

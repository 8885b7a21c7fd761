/// A result builder that assembles ``Instructions`` from representable components.
///
/// Every expression must be a ``InstructionsRepresentable`` (a `String`, a ``Instructions``, a ``Generable`` value…).
/// `if`, `if`/`else`, `switch`, `for` loops and availability checks are supported. Components are joined
/// with newlines; a false `if` without `else` contributes nothing.
@resultBuilder
public struct InstructionsBuilder {
    /// Combines the components of a block, in order.
    public static func buildBlock<each Component: InstructionsRepresentable>(_ components: repeat each Component) -> Instructions {
        Instructions(repeat each components)
    }

    /// Combines the results of a `for` loop, in order.
    public static func buildArray(_ components: [some InstructionsRepresentable]) -> Instructions {
        Instructions(components)
    }

    /// Produces the result of the first branch of an `if`/`else` or `switch`.
    public static func buildEither(first component: some InstructionsRepresentable) -> Instructions {
        Instructions(component)
    }

    /// Produces the result of the second branch of an `if`/`else` or `switch`.
    public static func buildEither(second component: some InstructionsRepresentable) -> Instructions {
        Instructions(component)
    }

    /// Produces the result of an `if` without `else`: empty when the condition is false.
    public static func buildOptional(_ component: Instructions?) -> Instructions {
        component ?? Instructions()
    }

    /// Produces the result of an `if #available` block.
    public static func buildLimitedAvailability(_ component: some InstructionsRepresentable) -> Instructions {
        Instructions(component)
    }

    /// Accepts any representable expression.
    @_disfavoredOverload
    public static func buildExpression<Component: InstructionsRepresentable>(_ expression: Component) -> Component {
        expression
    }

    /// Accepts a ``Instructions`` expression.
    public static func buildExpression(_ expression: Instructions) -> Instructions {
        expression
    }

    /// Rejects expressions that aren't representable, with a clear diagnostic.
    @available(*, unavailable, message: "Only `Instructions` and `InstructionsRepresentable` are supported.")
    public static func buildExpression<T>(_ expression: T) -> Instructions {
        fatalError("Unreachable: this overload is unavailable.")
    }
}

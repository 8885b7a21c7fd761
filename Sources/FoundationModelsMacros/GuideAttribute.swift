import SwiftSyntax
import SwiftSyntaxBuilder

/// The merged content of every `@Guide` attribute on one property.
///
/// Apple's samples stack attributes (`@Guide(description: "…") @Guide(.count(3))`), so the
/// description and the guide list are gathered from all of them, in source order.
struct GuideAttribute {
    /// The description expression, passed through unchanged (a literal or a named constant).
    var description: ExprSyntax?

    /// Each guide expression, rewritten only where a regex literal's source must be kept.
    var guides: [ExprSyntax] = []

    /// `@Guide` attributes after the first that also had a description, for a warning.
    var extraDescriptions: [AttributeSyntax] = []

    /// The name of the runtime entry point that takes a regex together with its source text.
    ///
    /// `Regex` cannot give its pattern back at run time on Linux, so the macro, which sees the
    /// literal, hands the text over as a string next to the compiled regex.
    static let patternEntryPoint = "_pattern"

    /// Reads every `@Guide` attribute in `attributes`.
    init(attributes: AttributeListSyntax) {
        for element in attributes {
            guard case .attribute(let attribute) = element, Self.isGuide(attribute) else { continue }
            guard case .argumentList(let arguments) = attribute.arguments else { continue }
            for argument in arguments {
                if argument.label?.text == "description" {
                    if description == nil {
                        description = argument.expression.trimmed
                    } else {
                        extraDescriptions.append(attribute)
                    }
                } else {
                    guides.append(Self.rewritingRegexLiterals(in: argument.expression.trimmed))
                }
            }
        }
    }

    /// Whether `attribute` is `@Guide` or `@FoundationModels.Guide`.
    static func isGuide(_ attribute: AttributeSyntax) -> Bool {
        PropertyType.nominalName(of: attribute.attributeName.trimmed) == "Guide"
    }

    /// Turns a bare regex literal, or `.pattern(<regex literal>)` anywhere inside a guide (such as
    /// `.element(.pattern(/…/))`), into the source-carrying entry point.
    static func rewritingRegexLiterals(in expression: ExprSyntax) -> ExprSyntax {
        if let regex = expression.as(RegexLiteralExprSyntax.self) {
            return patternCall(for: regex)
        }
        return RegexPatternRewriter().rewrite(expression).cast(ExprSyntax.self)
    }

    /// `._pattern(/…/, source: "…")` for one literal.
    static func patternCall(for regex: RegexLiteralExprSyntax) -> ExprSyntax {
        let source = StringLiteral.escaped(regexSource(of: regex))
        return "FoundationModels.GenerationGuide<String>.\(raw: patternEntryPoint)(\(regex.trimmed), source: \(raw: source))"
    }

    /// The pattern text of a regex literal, as a regex engine would read it.
    ///
    /// A multi-line extended literal (`#/` then a newline) is parsed in extended mode, where
    /// whitespace and `#` comments are ignored; `(?x)` in front keeps that meaning once the text
    /// leaves the literal. Single-line `#/…/#` reads the same as `/…/`.
    static func regexSource(of regex: RegexLiteralExprSyntax) -> String {
        let text = regex.regex.text
        if regex.openingPounds != nil, text.contains(where: \.isNewline) {
            return "(?x)" + text
        }
        return text
    }
}

/// Rewrites `.pattern(<regex literal>)` calls to the source-carrying entry point.
private final class RegexPatternRewriter: SyntaxRewriter {
    override func visit(_ node: FunctionCallExprSyntax) -> ExprSyntax {
        guard let member = node.calledExpression.as(MemberAccessExprSyntax.self),
            member.declName.baseName.text == "pattern",
            member.base == nil,
            node.arguments.count == 1,
            let only = node.arguments.first, only.label == nil,
            let regex = only.expression.as(RegexLiteralExprSyntax.self)
        else {
            return super.visit(node)
        }
        return GuideAttribute.patternCall(for: regex)
    }
}

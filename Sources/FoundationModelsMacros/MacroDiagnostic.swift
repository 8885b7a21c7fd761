import SwiftDiagnostics

/// Every diagnostic `@Generable` and `@Guide` can emit, with a stable identifier per case.
///
/// The messages name the property and say what to change, because the user sees them at the
/// attribute or property, far from the macro's documentation.
enum MacroDiagnostic: DiagnosticMessage {
    case unsupportedDeclaration(kind: String)
    case missingTypeAnnotation(property: String)
    case unsupportedPropertyType(property: String, type: String, reason: String)
    case unsupportedAssociatedValueType(caseName: String, type: String, reason: String)
    case guideOnNonStoredProperty(reason: String)
    case guideOnNonProperty
    case duplicateGuideDescription(property: String)
    case memberInsideIfConfig(member: String)
    case memberInsideIfConfigLeftOut(member: String, effect: String)
    case guideOnUngeneratedProperty(property: String, reason: String)
    case duplicateCaseName(name: String)
    case duplicateAssociatedValueKey(caseName: String, key: String)
    case destructuringPattern(pattern: String)

    var message: String {
        switch self {
        case .unsupportedDeclaration(let kind):
            return "@Generable can only be applied to a struct or an enum, not to \(kind)"
        case .missingTypeAnnotation(let property):
            return "@Generable property '\(property)' needs an explicit type annotation"
        case .unsupportedPropertyType(let property, let type, let reason):
            return "@Generable property '\(property)' has type '\(type)', which cannot be generated: \(reason)"
        case .unsupportedAssociatedValueType(let caseName, let type, let reason):
            return "associated value of case '\(caseName)' has type '\(type)', which cannot be generated: \(reason)"
        case .guideOnNonStoredProperty(let reason):
            return "@Guide can only be applied to a stored property; this is \(reason)"
        case .guideOnNonProperty:
            return "@Guide can only be applied to a stored property"
        case .duplicateGuideDescription(let property):
            return "property '\(property)' has more than one @Guide description; the first one is used"
        case .memberInsideIfConfig(let member):
            return "\(member) is declared inside '#if'; @Generable cannot tell whether it is compiled, so declare it outside '#if'"
        case .memberInsideIfConfigLeftOut(let member, let effect):
            return "\(member) is declared inside '#if', where @Generable cannot see it: \(effect); declare it outside '#if' to include it"
        case .guideOnUngeneratedProperty(let property, let reason):
            return "@Guide has no effect on '\(property)': \(reason), so the model does not generate it"
        case .duplicateCaseName(let name):
            return "more than one case is named '\(name)'; @Generable names each answer by its case, so give the cases distinct names"
        case .duplicateAssociatedValueKey(let caseName, let key):
            return "two associated values of case '\(caseName)' are keyed '\(key)' (@Generable keys an unlabeled value by its position: _0, _1, …); label them apart"
        case .destructuringPattern(let pattern):
            return "@Generable cannot name the properties bound by '\(pattern)'; declare each property on its own (for example 'var a: Int' and 'var b: Int')"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .unsupportedDeclaration: id = "unsupportedDeclaration"
        case .missingTypeAnnotation: id = "missingTypeAnnotation"
        case .unsupportedPropertyType: id = "unsupportedPropertyType"
        case .unsupportedAssociatedValueType: id = "unsupportedAssociatedValueType"
        case .guideOnNonStoredProperty: id = "guideOnNonStoredProperty"
        case .guideOnNonProperty: id = "guideOnNonProperty"
        case .duplicateGuideDescription: id = "duplicateGuideDescription"
        case .memberInsideIfConfig: id = "memberInsideIfConfig"
        case .memberInsideIfConfigLeftOut: id = "memberInsideIfConfigLeftOut"
        case .guideOnUngeneratedProperty: id = "guideOnUngeneratedProperty"
        case .duplicateCaseName: id = "duplicateCaseName"
        case .duplicateAssociatedValueKey: id = "duplicateAssociatedValueKey"
        case .destructuringPattern: id = "destructuringPattern"
        }
        return MessageID(domain: "FoundationModelsMacros", id: id)
    }

    var severity: DiagnosticSeverity {
        switch self {
        case .duplicateGuideDescription, .memberInsideIfConfigLeftOut: return .warning
        default: return .error
        }
    }
}

// A public type's generated members are public and mention FoundationModels types, so the import must be public.
public import FoundationModels

/// A public `@Generable` type, to check that the expansion's access levels compile.
@Generable
public struct PublicSummary {
    /// The summary text.
    public let text: String
}

public struct PublicOuter {}

public extension PublicOuter {
    /// Public because its extension is, without a modifier of its own.
    @Generable
    struct InExtension {
        var text: String
    }
}

/// A public type with an internal property of an internal type.
@Generable
public struct PublicWithInternalPart {
    public var name: String
    var part: InternalPart
}

@Generable
struct InternalPart {
    var value: Int
}

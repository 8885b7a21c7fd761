// A public type's generated members are public and mention FoundationModels types, so the import must be public.
public import FoundationModels

/// A public `@Generable` type, to check that the expansion's access levels compile.
@Generable
public struct PublicSummary {
    /// The summary text.
    public let text: String
}

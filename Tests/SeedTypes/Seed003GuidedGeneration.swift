import FoundationModels

// The @Generable type from seed 003 ("Generating Swift data structures with guided generation"), copied verbatim.

/// Seed 003: the guided-generation article.
enum Seed003 {
    @Generable(description: "Basic profile information about a cat")
    struct CatProfile {
        // A guide isn't necessary for basic fields.
        var name: String

        @Guide(description: "The age of the cat", .range(0...20))
        var age: Int

        @Guide(description: "A one sentence profile about the cat's personality")
        var profile: String
    }
}

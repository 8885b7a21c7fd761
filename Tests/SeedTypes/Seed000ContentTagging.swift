import FoundationModels

// The @Generable type from seed 000 (content tagging), copied verbatim. The seeds' types live in one
// namespace per seed, so their names cannot clash with other tests' fixtures.

/// Seed 000: the content-tagging article.
enum Seed000 {
    @Generable
    struct ContentTaggingResult {
        @Guide(
            description: "Most important actions in the input text.",
            .maximumCount(2)
        )
        let actions: [String]

        @Guide(
            description: "Most important emotions in the input text.",
            .maximumCount(3)
        )
        let emotions: [String]

        @Guide(
            description: "Most important objects in the input text.",
            .maximumCount(5)
        )
        let objects: [String]

        @Guide(
            description: "Most important topics in the input text.",
            .maximumCount(2)
        )
        let topics: [String]
    }
}

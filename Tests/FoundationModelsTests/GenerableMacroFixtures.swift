import FoundationModels

// Types the macro runtime tests need beyond the seeds: optionals, both nil representations and a regex guide.

/// Fixtures for `GenerableMacroRuntimeTests`.
enum GenerableMacroFixtures {
    @Generable
    struct Contact {
        let name: String
        let nickname: String?
    }

    @Generable(representNilExplicitlyInGeneratedContent: true)
    struct ExplicitContact {
        let name: String
        let nickname: String?
    }

    @Generable
    struct Product {
        @Guide(description: "SKU", /[A-Z]{3}-\d{4}/)
        var sku: String

        @Guide(#/a/b/#)
        var path: String?
    }
}

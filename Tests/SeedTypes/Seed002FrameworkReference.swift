import FoundationModels

// The @Generable types from seed 002 (framework reference pages). The seed flattens code onto single
// lines; only the line breaks are restored (a `//` comment needs one), the declarations are unchanged.

/// Seed 002: the framework reference pages.
enum Seed002 {
    // From the `Tool` page.
    @Generable
    struct Arguments {
        @Guide(description: "The number of contacts to get", .range(1...10))
        let count: Int
    }

    // From "Improving safety from generative model output".
    @Generable
    enum Breakfast {
        case waffles
        case pancakes
        case bagels
        case eggs
    }

    // From the `Generable` page.
    @Generable
    struct SearchSuggestions {
        @Guide(description: "A list of suggested search terms", .count(4))
        var searchTerms: [SearchTerm]

        @Generable
        struct SearchTerm {
            // Use a generation identifier for types the framework generates.
            var id: GenerationID

            @Guide(description: "A 2 or 3 word search term, like 'Beautiful sunsets'")
            var searchTerm: String
        }
    }
}

@testable import FoundationModels
import Foundation
@testable import SeedTypes
import Testing

/// Guided generation with the real default model: every seed type decodes, guides hold.
@Suite("Guided generation with the real default model", .serialized, .timeLimit(.minutes(20)))
struct GuidedGenerationTests {
    static let inputs = [
        "Today we had a lovely picnic with friends at the beach.",
        "Grocery list: 1. Bread flour 2. Salt 3. Instant yeast",
        "My order arrived broken and nobody answers my emails. I want a refund now!",
    ]

    static let samplings: [GenerationOptions] = [
        GenerationOptions(samplingMode: .greedy),
        GenerationOptions(samplingMode: .random(top: 20, seed: 7), temperature: 0.8),
    ]

    private func generate<T: Generable>(_ type: T.Type, _ input: String, _ options: GenerationOptions) async throws -> LanguageModelSession.Response<T> {
        let session = LanguageModelSession(model: DefaultModel.model)
        return try await session.respond(to: input, generating: type, options: options)
    }

    @Test(arguments: inputs)
    func contentTaggingResultHonoursEveryGuide(_ input: String) async throws {
        // A valid answer needs under 100 tokens; the cap turns a runaway string into a failure, not a long wait.
        try await checkContentTagging(input, GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 300))
        // Sampled at 0.8, the small model can draw a string that never ends (a legal, endless list item), which
        // is reported as a decodingFailure at the cap; which seed does so depends on the CPU's arithmetic. So the
        // guides are checked on the first of several draws that ends.
        var ended = false
        for seed in UInt64(7)...12 where !ended {
            do {
                try await checkContentTagging(input, GenerationOptions(samplingMode: .random(top: 20, seed: seed), temperature: 0.8,
                                                                       maximumResponseTokens: 300))
                ended = true
            } catch LanguageModelSession.GenerationError.decodingFailure(let context)
                where context.debugDescription.contains("maximumResponseTokens") {
                continue
            }
        }
        #expect(ended, "none of six sampled draws ended within 300 tokens")
    }

    private func checkContentTagging(_ input: String, _ options: GenerationOptions) async throws {
        let response = try await generate(Seed000.ContentTaggingResult.self, input, options)
        let tags = response.content
        #expect(tags.actions.count <= 2 && tags.emotions.count <= 3 && tags.objects.count <= 5 && tags.topics.count <= 2)
        // The raw JSON is in declaration order, spaced as Apple writes it, and parses back to the same content.
        #expect(response.rawContent.jsonString.hasPrefix(#"{"actions": ["#))
        #expect(try GeneratedContent(json: response.rawContent.jsonString) == response.rawContent)
    }

    @Test(arguments: inputs, samplings)
    func everySeedClassificationTypeDecodes(_ input: String, _ options: GenerationOptions) async throws {
        try expectFaithful(await generate(Seed001.NoteCategorization.self, input, options))
        try expectFaithful(await generate(Seed001.SupportTicketClassification.self, input, options))
        try expectFaithful(await generate(Seed001.ClassificationWithConfidence.self, input, options))
        let multiLabel = try await generate(Seed001.MultiLabelClassification.self, input, options)
        try expectFaithful(multiLabel)
        #expect((1...3).contains(multiLabel.content.topics.count), "the guide's .count(1...3): \(multiLabel.content.topics)")
        try expectFaithful(await generate(Seed001.LayeredClassification.self, input, options))
        try expectFaithful(await generate(Seed001.SafetyClassification.self, input, options))
        try expectFaithful(await generate(Seed001.AudienceAwareClassification.self, input, options))
        try expectFaithful(await generate(Seed001.EmailClassification.self, input, options))
        try expectFaithful(await generate(Seed001.ModerationClassification.self, input, options))
        try expectFaithful(await generate(Seed001.LearnerClassification.self, input, options))
    }

    /// The typed value says what the raw JSON says: every stored property, in declaration order, with the
    /// same choice, flag or list.
    private func expectFaithful<T>(_ response: LanguageModelSession.Response<T>) throws {
        let fields = Mirror(reflecting: response.content).children.compactMap { child in child.label.map { ($0, child.value) } }
        guard case .structure(let properties, let orderedKeys) = response.rawContent.kind else {
            Issue.record("\(T.self): not an object: \(response.rawContent.jsonString)")
            return
        }
        #expect(orderedKeys == fields.map(\.0), "\(T.self): \(response.rawContent.jsonString)")
        for (name, value) in fields {
            let raw = try #require(properties[name], "\(T.self).\(name) missing from \(response.rawContent.jsonString)")
            switch raw.kind {
            case .string(let text): #expect("\(value)" == text, "\(T.self).\(name)")
            case .bool(let flag): #expect(value as? Bool == flag, "\(T.self).\(name)")
            case .array(let elements):
                let typed = Mirror(reflecting: value).children.map { "\($0.value)" }
                #expect(typed == elements.compactMap { if case .string(let text) = $0.kind { text } else { nil } }, "\(T.self).\(name)")
            default: Issue.record("\(T.self).\(name): unexpected \(raw.jsonString)")
            }
        }
    }

    @Test(arguments: samplings)
    func catProfileAgeStaysInRange(_ options: GenerationOptions) async throws {
        let session = LanguageModelSession(model: DefaultModel.model)
        let cat = try await session.respond(to: "Generate a cute rescue cat", generating: Seed003.CatProfile.self, options: options).content
        #expect((0...20).contains(cat.age))
        #expect(!cat.name.isEmpty)
    }

    @Test(arguments: samplings)
    func searchSuggestionsHaveExactlyFourTerms(_ options: GenerationOptions) async throws {
        // A valid answer needs about 60 tokens; the cap only stops a runaway string early.
        var capped = options
        capped.maximumResponseTokens = 400
        let session = LanguageModelSession(model: DefaultModel.model)
        let suggestions = try await session.respond(to: "Suggest searches about national parks",
                                                    generating: Seed002.SearchSuggestions.self, options: capped).content
        #expect(suggestions.searchTerms.count == 4)
    }

    @Test func dynamicMenuSchemaGeneratesAValidChoice() async throws {
        let soup = DynamicGenerationSchema(name: "dailySoup", anyOf: ["Tomato", "Chicken Noodle", "Clam Chowder"])
        let menu = DynamicGenerationSchema(name: "menu", properties: [
            .init(name: "soup", schema: .init(referenceTo: "dailySoup")),
            .init(name: "price", schema: .init(type: Double.self, guides: [.range(2...9)])),
            .init(name: "note", schema: .init(type: String.self), isOptional: true),
        ])
        let schema = try GenerationSchema(root: menu, dependencies: [soup])
        for options in Self.samplings {
            let session = LanguageModelSession(model: DefaultModel.model)
            let content = try await session.respond(to: "Pick today's soup and its price.", schema: schema, options: options).content
            #expect(["Tomato", "Chicken Noodle", "Clam Chowder"].contains(try content.value(String.self, forProperty: "soup")))
            #expect((2.0...9.0).contains(try content.value(Double.self, forProperty: "price")))
        }
    }

    /// JSON tells "café" with U+00E9 and with "e" and U+0301 apart, though Swift's `==` does not: each schema is
    /// compiled for its own spelling, even after the other's was, in one process.
    @Test func schemasThatDifferOnlyInCanonicallyEquivalentSpellingsEachGetTheirOwn() async throws {
        for choice in ["caf\u{E9}", "cafe\u{301}", "caf\u{E9}"] {
            let value = DynamicGenerationSchema(name: "Drink", anyOf: [choice])
            let root = DynamicGenerationSchema(name: "Order", properties: [.init(name: "drink", schema: value)])
            let schema = try GenerationSchema(root: root, dependencies: [])
            let session = LanguageModelSession(model: DefaultModel.model)
            let content = try await session.respond(to: "Order a drink.", schema: schema, options: GenerationOptions(samplingMode: .greedy)).content
            let drink = try content.value(String.self, forProperty: "drink")
            #expect(Array(drink.unicodeScalars) == Array(choice.unicodeScalars))
        }
    }

    @Test func structuredStreamingYieldsConsistentPrefixesWithOneID() async throws {
        let session = LanguageModelSession(model: DefaultModel.model)
        let stream = session.streamResponse(to: Self.inputs[0], generating: Seed000.ContentTaggingResult.self,
                                            options: GenerationOptions(samplingMode: .greedy))
        var raws: [String] = []
        var ids: Set<GenerationID?> = []
        var nestedIDs: Set<GenerationID?> = []
        func topics(_ content: GeneratedContent) -> GeneratedContent? {
            guard case .structure(let properties, _) = content.kind else { return nil }
            return properties["topics"]
        }
        for try await snapshot in stream {
            raws.append(snapshot.rawContent.jsonString)
            ids.insert(snapshot.rawContent.id)
            if let list = topics(snapshot.rawContent) { nestedIDs.insert(list.id) }
            _ = snapshot.content.topics // PartiallyGenerated: every property optional
        }
        #expect(raws.count > 3)
        #expect(ids.count == 1 && ids.first! != nil)
        let final = try await stream.collect()
        #expect(final.rawContent.isComplete)
        #expect(raws.last == final.rawContent.jsonString)
        // A nested value keeps one identifier from its first snapshot to the final content.
        #expect(nestedIDs.count == 1 && nestedIDs.first! != nil && nestedIDs.first! != ids.first!, "\(nestedIDs)")
        #expect(nestedIDs.first! == topics(final.rawContent)?.id)
    }

    @Test func maximumResponseTokensMidStructureThrowsDecodingFailure() async throws {
        let session = LanguageModelSession(model: DefaultModel.model)
        await #expect {
            try await session.respond(to: Self.inputs[0], generating: Seed000.ContentTaggingResult.self,
                                      options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 3))
        } throws: { error in
            if case .decodingFailure = error as? LanguageModelSession.GenerationError { return true }
            return false
        }
        #expect(session.transcript.isEmpty, "no half value is recorded")
    }

    @Test func anUnsupportedPatternThrowsUnsupportedGuideBeforeGenerating() async throws {
        let schema = GenerationSchema(type: GeneratedContent.self, properties: [
            GenerationSchema.Property(name: "code", type: String.self, guides: [try Regex(#"(a)\1"#)]),
        ])
        await #expect {
            try await LanguageModelSession(model: DefaultModel.model).respond(to: "Give a code", schema: schema)
        } throws: { error in
            if case .unsupportedGuide = error as? LanguageModelSession.GenerationError { return true }
            return false
        }
    }

    @Test func constrainedOutputForcesKeysAndPunctuation() async throws {
        let session = LanguageModelSession(model: DefaultModel.model)
        _ = try await session.respond(to: Self.inputs[0], generating: Seed000.ContentTaggingResult.self,
                                      options: GenerationOptions(samplingMode: .greedy))
        let statistics = try #require(session.lastStatistics)
        #expect(statistics.forcedTokens > 0, "keys and punctuation are appended without sampling")
    }
}

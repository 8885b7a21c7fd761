import FMTagging
import Foundation
import FoundationModels
import Testing

/// Answer quality of the catalogue's default model (not the tiny model the mechanics tests run on), through the
/// real `fm eval`, on texts the team wrote and labelled: for two seed schemas (`benchmarks/team/`), and star ratings
/// in the style of a source outside the dev pack (`benchmarks/unseen/`). The bars sit
/// well below what the default model measures and well above what a constant or a random answer scores, so a
/// change that makes the answers meaningless fails here, not only in `make quality`.
@Suite("Answer quality of the default model on team-labelled texts", .serialized, .timeLimit(.minutes(20)))
struct DefaultModelQualityTests {
    static let team = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../benchmarks/team").standardizedFileURL

    /// Sets in the style of public sources outside the dev pack, with their own label sets.
    static let unseen = team.deletingLastPathComponent().appendingPathComponent("unseen")

    /// `fm eval` on a team file under the seed schema it is named after, with the default model.
    static func evaluate(_ preset: String) throws -> [String: EvaluationReport.FieldScore] {
        try evaluate(team.appendingPathComponent("\(preset).jsonl"), arguments: ["--preset", preset])
    }

    /// `fm eval` on a labelled file with the default model (by default under the file's own label sets).
    static func evaluate(_ file: URL, arguments: [String] = []) throws -> [String: EvaluationReport.FieldScore] {
        let model = ModelCatalog.defaultEntry
        #expect(model.installState == .installed, "Run `fm model install \(model.name)` (or `make test`).")
        let result = try ReportCommandTests.run(["eval", file.path] + arguments + ["--model", model.name, "--no-cache", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONDecoder().decode(EvaluationReport.self, from: Data(result.stdout.utf8))
        #expect(report.failures == 0)
        return Dictionary(uniqueKeysWithValues: report.fields.map { ($0.field, $0) })
    }

    @Test func supportTicketsGetTheirTopicAndNoFieldIsConstant() throws {
        let fields = try Self.evaluate("support-ticket")
        #expect(Set(fields.keys) == ["topic", "tone", "urgency", "hasPriorAttempts"])
        for field in fields.values {
            #expect(field.predictedValues.count >= 2, "\(field.field) predicted only \(field.predictedValues)")
        }
        // Six topics, six tickets each: a constant answer scores 16.7 %.
        let topic = try #require(fields["topic"])
        #expect(topic.accuracy >= 0.6, "topic accuracy \(topic.accuracy)")
    }

    @Test func notesGetTheirCategory() throws {
        let fields = try Self.evaluate("note-category")
        // Eight categories, three notes each: a constant answer scores 12.5 %.
        let category = try #require(fields["category"])
        #expect(category.predictedValues.count >= 6, "predicted only \(category.predictedValues)")
        #expect(category.accuracy >= 0.6, "category accuracy \(category.accuracy)")
    }

    /// Star ratings, "1" to "5", in the style of Yelp reviews (`benchmarks/unseen/`): a label set whose names say
    /// little, for which the model once described only "4", and every one-star review came out as "5".
    @Test func starRatingsKeepTheirOrder() throws {
        let fields = try Self.evaluate(Self.unseen.appendingPathComponent("rating_yelp.jsonl"))
        let rating = try #require(fields["label"])
        // Five ratings, seven reviews each: a constant answer scores 20 %.
        #expect(rating.accuracy >= 0.5, "accuracy \(rating.accuracy): \(rating.confusion)")
        func count(_ gold: String, as predicted: [String]) -> Int { predicted.reduce(0) { $0 + (rating.confusion[gold]?[$1] ?? 0) } }
        #expect(count("1", as: ["4", "5"]) <= 1, "one-star reviews read as good ones: \(rating.confusion)")
        #expect(count("5", as: ["1", "2"]) <= 1, "five-star reviews read as bad ones: \(rating.confusion)")
    }
}

extension EvaluationReport.FieldScore {
    /// Every label the model answered at least once.
    var predictedValues: Set<String> { Set(confusion.values.flatMap(\.keys)) }
}

import FMTagging
import Foundation
import FoundationModels
import Testing

/// Answer quality of the catalogue's default model (not the tiny model the mechanics tests run on), through the
/// real `fm eval`, on texts the team wrote and labelled for two seed schemas (`benchmarks/team/`). The bars sit
/// well below what the default model measures and well above what a constant or a random answer scores, so a
/// change that makes the answers meaningless fails here, not only in `make quality`.
@Suite("Answer quality of the default model on team-labelled texts", .serialized, .timeLimit(.minutes(20)))
struct DefaultModelQualityTests {
    static let team = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../benchmarks/team").standardizedFileURL

    /// `fm eval` on a team file under the seed schema it is named after, with the default model.
    static func evaluate(_ preset: String) throws -> [String: EvaluationReport.FieldScore] {
        let model = ModelCatalog.defaultEntry
        #expect(model.installState == .installed, "Run `fm model install \(model.name)` (or `make test`).")
        let file = team.appendingPathComponent("\(preset).jsonl")
        let result = try ReportCommandTests.run(["eval", file.path, "--preset", preset, "--model", model.name,
                                                 "--no-cache", "--json"])
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
}

extension EvaluationReport.FieldScore {
    /// Every label the model answered at least once.
    var predictedValues: Set<String> { Set(confusion.values.flatMap(\.keys)) }
}

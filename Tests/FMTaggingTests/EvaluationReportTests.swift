import FMTagging
import Foundation
import FoundationModels
import Testing

@Suite struct EvaluationReportTests {
    @Test func singleLabelAccuracyAndMacroF1() {
        let report = EvaluationReport(
            gold: [.single("a"), .single("a"), .single("b"), .single("b")],
            predictions: [.single("a"), .single("b"), .single("b"), nil])
        #expect(report.fields.first?.accuracy == 0.5)
        // F1(a) = 2/3 (one missed), F1(b) = 1/2 (one false positive, one failed).
        #expect(abs((report.fields.first?.macroF1 ?? 0) - 7.0 / 12.0) < 1e-9)
        #expect(report.overallAccuracy == 0.5)
        #expect(report.failures == 1)
        #expect(report.fields.first?.confusion["b"]?["<error>"] == 1)
    }

    /// A label predicted but never gold lowers the macro average: one gold class half right is not 2/3.
    @Test func aLabelOnlyPredictedCountsInTheMacroAverage() {
        let report = EvaluationReport(gold: [.single("x"), .single("x")], predictions: [.single("x"), .single("y")])
        // F1(x) = 2/3, F1(y) = 0.
        #expect(abs((report.fields.first?.macroF1 ?? 0) - 1.0 / 3.0) < 1e-12)
    }

    @Test func setScoresNormaliseTags() {
        let report = EvaluationReport(gold: [.set(["Bread-Flour", "salt"])], predictions: [.set(["bread flour", "yeast"])])
        #expect(report.set?.precision == 0.5)
        #expect(report.set?.recall == 0.5)
    }

    @Test func allFieldsCorrect() {
        let report = EvaluationReport(
            gold: [.fields(["a": "x", "b": "true"]), .fields(["a": "y", "b": "false"])],
            predictions: [.fields(["a": "x", "b": "true"]), .fields(["a": "y", "b": "true"])])
        #expect(report.overallAccuracy == 0.5)
        #expect(report.fields.count == 2)
    }

    /// A result without a gold field is not a failed generation: it is counted under its own label, and the
    /// report's failures stay those of generation, in the text and in the JSON alike.
    @Test func missingFieldsAreCountedApartFromFailures() throws {
        let report = EvaluationReport(
            gold: [.fields(["sentiment": "pos", "topic": "x"]), .fields(["sentiment": "neg", "topic": "y"])],
            predictions: [.fields(["sentiment": "pos"]), nil])
        #expect(report.failures == 1)
        let topic = try #require(report.fields.first { $0.field == "topic" })
        #expect(topic.confusion["x"] == [EvaluationReport.missingLabel: 1])
        #expect(topic.confusion["y"] == [EvaluationReport.failureLabel: 1])
        #expect(topic.missing == 1)
        #expect(topic.missing(gold: "x") == 1)
        #expect(topic.failures(gold: "x") == 0)
        #expect(topic.labels == ["x", "y"], "neither sentinel is a label")
        #expect(report.tableText.contains("failed: 1   fields missing from results: 1"))
        #expect(report.tableText.contains(EvaluationReport.missingLabel))
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(json.contains(EvaluationReport.missingLabel))
    }

    /// A model's answer spelled like the failure or missing-field names is the wrong label it is: neither a
    /// failed record nor a missing field, and a label of the macro average.
    @Test func aLabelSpelledLikeAFailureIsALabel() throws {
        func predicted(_ json: String) throws -> LabelledExample.Gold? {
            EvaluationTask.prediction(shapedLike: .single("a"), in: try GeneratedContent(json: json), scoring: nil)
        }
        let error = try predicted(#"{"label":"<error>"}"#)
        #expect(error == .single("\\<error>"))
        #expect(try predicted(#"{"label":"\\\\<missing>"}"#) == .single("\\\\\\<missing>"))
        #expect(try predicted(#"{"label":"<error> "}"#) == .single("<error> "))
        let report = EvaluationReport(gold: [.single("a"), .single("b")], predictions: [error, .single("b")])
        let field = try #require(report.fields.first)
        #expect(report.failures == 0)
        #expect(field.failures(gold: "a") == 0)
        #expect(field.labels == ["\\<error>", "a", "b"])
        #expect(abs(field.macroF1 - 1.0 / 3.0) < 1e-12)
        let fields = EvaluationTask.prediction(shapedLike: .fields(["tone": "calm"]),
                                               in: try GeneratedContent(json: #"{"tone":"<missing>"}"#), scoring: nil)
        #expect(fields == .fields(["tone": "\\<missing>"]))
        #expect(EvaluationReport(gold: [.fields(["tone": "calm"])], predictions: [fields]).fields.first?.missing == 0)
    }

    /// The score table names every field whole, and a label's line breaks and direction controls are written as
    /// escapes, so neither breaks the table's lines nor reverses the cells after it; long labels are cut.
    @Test func tableTextKeepsItsLines() throws {
        let gold: [LabelledExample.Gold] = [.fields(["customer_satisfaction_rating": "a\nb", "customer_satisfaction_reason": "x"]),
                                            .fields(["customer_satisfaction_rating": "c\u{202E}d", "customer_satisfaction_reason": "x"])]
        let long = String(repeating: "w", count: 400)
        let text = EvaluationReport(gold: gold, predictions: [.fields(["customer_satisfaction_rating": long,
                                                                       "customer_satisfaction_reason": "x"]), gold[1]]).tableText
        #expect(text.contains("customer_satisfaction_rating    50.0%"), "\(text)")
        #expect(text.contains("customer_satisfaction_reason   100.0%"), "\(text)")
        #expect(!text.contains("\u{202E}"))
        #expect(text.contains("a\\nb") && text.contains("c\\u{202E}d"), "\(text)")
        let separators = EvaluationReport(gold: [.single("p\u{2028}q")], predictions: [.single("p\u{2028}q")]).tableText
        #expect(separators.contains("p\\u{2028}q") && !separators.contains("\u{2028}"), "\(separators)")
        let lines = text.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count < 200 }, "\(text)")
        #expect(text.contains(String(repeating: "w", count: 23) + "…"), "\(text)")
        // Two gold labels and fifteen predicted ones make seventeen labels: too many for a terminal.
        let many = EvaluationReport(gold: (0..<15).map { .single($0 < 2 ? "g\($0)" : "g0") },
                                    predictions: (0..<15).map { .single("p\($0)") })
        #expect(many.tableText.contains("label: 17 labels; confusion matrix in --json"), "\(many.tableText)")
    }

    /// The lines of a file a report leaves out are part of it, so a saved report does not read as the whole file's.
    @Test func linesNotScoredAreReported() throws {
        var report = EvaluationReport(gold: [.single("a")], predictions: [.single("a")])
        #expect(!report.tableText.contains("not scored"))
        report.unlabelled = 2
        report.pastLimit = 5
        #expect(report.tableText.hasPrefix(
            "examples: 1   failed: 0   lines without a gold answer, not scored: 2   labelled lines past the limit, not scored: 5"))
        let decoded = try JSONDecoder().decode(EvaluationReport.self, from: try JSONEncoder().encode(report))
        #expect(decoded.unlabelled == 2 && decoded.pastLimit == 5)
    }

    /// A tag that normalises to nothing (`"-"`, `"_ "`) is no tag: neither a hit, a miss nor an extra.
    @Test func emptyTagsAreNotScored() throws {
        let report = EvaluationReport(gold: [.set(["salt", "-"])], predictions: [.set(["Salt", "_ ", "-"])])
        let set = try #require(report.set)
        #expect(set.precision == 1)
        #expect(set.recall == 1)
        #expect(set.extras.isEmpty)
        #expect(set.misses.isEmpty)
        #expect(EvaluationReport.normalizedTags(["-", "A-b", "a_b", ""]) == ["a b"])
        #expect(EvaluationTask.answerKey(.set(["salt", "-"])) == "[\"salt\"]")
    }

    /// Macro-F1 read off the counts agrees with the definition computed pair by pair, on a fixed pseudo-random
    /// input with failures and a label that is only ever predicted.
    @Test func macroF1MatchesAStraightforwardComputation() throws {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var goldLabels: [String] = [], guesses: [String] = []
        var predictions: [LabelledExample.Gold?] = []
        for _ in 0..<500 {
            let gold = "l\(next(7))"
            goldLabels.append(gold)
            if next(10) == 0 {
                predictions.append(nil)
                guesses.append(EvaluationReport.failureLabel)
            } else {
                // Mostly right, else any of eight labels (l7 is never gold).
                let guess = next(3) == 0 ? "l\(next(8))" : gold
                predictions.append(.single(guess))
                guesses.append(guess)
            }
        }
        let field = try #require(EvaluationReport(gold: goldLabels.map { .single($0) }, predictions: predictions).fields.first)
        let pairs = Array(zip(goldLabels, guesses))
        var sum = 0.0
        // Every label gold or predicted, as scikit-learn's macro average; a failure is no label.
        let labels = Set(goldLabels + guesses.filter { $0 != EvaluationReport.failureLabel }).sorted()
        for label in labels {
            let tp = Double(pairs.filter { $0.0 == label && $0.1 == label }.count)
            let fp = Double(pairs.filter { $0.0 != label && $0.1 == label }.count)
            let fn = Double(pairs.filter { $0.0 == label && $0.1 != label }.count)
            sum += tp == 0 ? 0 : 2 * tp / (2 * tp + fp + fn)
        }
        #expect(labels.count == 8)
        #expect(abs(field.macroF1 - sum / Double(labels.count)) < 1e-12)
        #expect(field.accuracy == Double(pairs.filter { $0.0 == $0.1 }.count) / 500)
    }

    /// Columns are counted in Characters: an emoji (two UTF-16 units each) or a decomposed accent neither
    /// shifts a column nor is cut in half.
    @Test func tableColumnsCountCharacters() {
        let wide = "😀😀😀😀😀😀😀😀"
        let accent = "cafe\u{301}"
        let gold: LabelledExample.Gold = .fields(["mood😀": wide, "topic": accent])
        let lines = EvaluationReport(gold: [gold], predictions: [gold]).tableText.split(separator: "\n").map(String.init)
        let scoreLines = lines.filter { ($0.hasPrefix("mood😀") || $0.hasPrefix("topic ")) && $0.contains("%") }
        #expect(scoreLines.count == 2)
        #expect(Set(scoreLines.map(\.count)).count == 1, "\(scoreLines)")
        #expect(lines.contains(wide + " 1" + String(repeating: " ", count: 8)))
        #expect(lines.contains(accent + String(repeating: " ", count: 5) + "1" + String(repeating: " ", count: 8)))
    }

    @Test func statisticsGroupVariants() {
        #expect(TagStatistics.normalize("Beaches") == "beach")
        #expect(TagStatistics.normalize("outdoor-activities") == TagStatistics.normalize("Outdoor activity"))
        #expect(TagStatistics.normalize("glass") == "glass")
        var statistics = TagStatistics()
        statistics.add(line: #"{"id":"1","date":"2020-03-10","result":{"topics":["Picnics","beach"]}}"#)
        statistics.add(line: #"{"id":"2","date":"2020-03-11","result":{"topics":["picnic"]}}"#)
        #expect(statistics.tagCounts["topics"]?["picnic"] == 2)
        #expect(statistics.topPairs(limit: 5).map { "\($0.first) + \($0.second) \($0.count)" } == ["beach + picnic 1"])
        #expect(statistics.monthCounts["2020-03"] == 2)
        // Lines that are not fm tag's output are counted apart; blank lines are not lines at all.
        statistics.add(line: "Today we had a lovely picnic.")
        statistics.add(line: "[1, 2]")
        statistics.add(line: "   ")
        // An input line is a JSON object too, but neither a result nor an error.
        statistics.add(line: #"{"id":"3","text":"A picnic."}"#)
        // The last line of a killed job, cut off inside a tag: neither a record nor the tag "cook".
        statistics.add(line: #"{"id":"4","text":"Pasta.","result":{"topics":["cook"#)
        // An escaped lone surrogate is no character: read as U+FFFD, it would count a tag no record holds.
        statistics.add(line: #"{"id":"5","result":{"topics":["\ud800"]}}"#)
        #expect(statistics.unreadableLines == 5)
        #expect(statistics.records == 2)
        #expect(statistics.tagCounts["topics"]?["cook"] == nil && statistics.tagCounts["topics"]?["\u{FFFD}"] == nil)
    }

    /// A record of thousands of tags is counted but not paired: its pairs would grow with the square of its tags.
    @Test func aRecordOfTooManyTagsIsCountedButNotPaired() {
        var statistics = TagStatistics()
        let many = (0...TagStatistics.pairedTagLimit).map { "\"t\($0)\"" }.joined(separator: ",")
        statistics.add(line: #"{"id":"1","result":{"topics":[\#(many)]}}"#)
        statistics.add(line: #"{"id":"2","result":{"topics":["t1","t2"]}}"#)
        #expect(statistics.unpairedRecords == 1)
        #expect(statistics.tagCounts["topics"]?["t1"] == 2)
        #expect(statistics.cooccurrences("t1", "t2") == 1)
        #expect(statistics.topPairs(limit: 5).map { "\($0.first) + \($0.second) \($0.count)" } == ["t1 + t2 1"])
    }

    /// Singular and plural spellings are one group, named by the spelling records used most, so a name is always
    /// a tag as written; words that only end like plurals keep their own group.
    @Test func statisticsGroupSingularAndPluralSpellings() {
        let sameGroup = [("movie", "Movies"), ("cookie", "cookies"), ("business", "businesses"), ("class", "classes"),
                         ("headache", "headaches"), ("beach", "beaches"), ("tomato", "tomatoes"), ("hero", "heroes"),
                         ("activity", "activities"), ("toy", "toys"), ("box", "boxes"), ("shoe", "shoes"),
                         ("weight loss", "weight-losses"), ("pie", "pies"), ("calorie", "calories")]
        for (singular, plural) in sameGroup {
            #expect(TagStatistics.normalize(singular) == TagStatistics.normalize(plural), "\(singular) / \(plural)")
        }
        for (one, other) in [("news", "new"), ("glass", "glas"), ("rate", "rat"), ("campus", "campu"), ("sky", "ski"),
                             ("skies", "skis"), ("guy", "gui"), ("1990s", "1990"), ("mars", "mar")] {
            #expect(TagStatistics.normalize(one) != TagStatistics.normalize(other), "\(one) / \(other)")
        }
        var statistics = TagStatistics()
        statistics.add(line: #"{"id":"1","result":{"topics":["Movies","Christmas"]}}"#)
        statistics.add(line: #"{"id":"2","result":{"topics":["movies","news"]}}"#)
        // Two spellings of one group in one record count the record once.
        statistics.add(line: #"{"id":"3","result":{"topics":["movie","movies"]}}"#)
        #expect(statistics.tagCounts["topics"] == ["movies": 3, "christmas": 1, "news": 1])
        #expect(statistics.cooccurrences("movie", "Christmas") == 1)
        #expect(statistics.listTagCounts["movies"] == 3)
        #expect(statistics.text(limit: 5).contains("  1\tchristmas + movies"))
    }

    /// Pairs are counted by their two tags, so tags holding the separator of the text report are not confused:
    /// {x, "y + z"} and {"x + y", z} are two different pairs.
    @Test func statisticsPairsAreKeptApart() {
        var statistics = TagStatistics()
        statistics.add(line: #"{"id":"1","result":{"topics":["x","y + z"]}}"#)
        statistics.add(line: #"{"id":"2","result":{"topics":["x + y","z"]}}"#)
        #expect(statistics.topPairs(limit: 5).map(\.count) == [1, 1])
        #expect(statistics.cooccurrences("x", "y + z") == 1)
        #expect(statistics.cooccurrences("x + y", "z") == 1)
        #expect(statistics.cooccurrences("x", "z") == 0)
    }

    /// A result that is a list or a single value (a schema whose root is not an object) is counted under `result`,
    /// not as an error; a date that does not begin with a year and month is in no month, and counted apart.
    @Test func statisticsCountResultsOfEveryShapeAndOnlyRealMonths() {
        var statistics = TagStatistics()
        statistics.add(line: #"{"id":"1","date":"yesterday","result":["a","b"]}"#)
        statistics.add(line: #"{"id":"2","date":"12/25/2024","result":"a"}"#)
        statistics.add(line: #"{"id":"3","date":1735084800,"result":[]}"#)
        statistics.add(line: #"{"id":"4","date":"2024-13-01","error":{"code":"c","message":"m"}}"#)
        statistics.add(line: #"{"id":"5","date":"2024-12-01T10:00","result":{"topics":["x"]}}"#)
        #expect(statistics.records == 5 && statistics.errors == 1)
        #expect(statistics.tagCounts["result"] == ["a": 2, "b": 1])
        #expect(statistics.monthCounts == ["2024-12": 1])
        #expect(statistics.undatedRecords == 4)
    }

    /// A nested schema's answers are counted under dotted names: a nested object's fields, and each member of a
    /// list of objects as one list.
    @Test func statisticsCountNestedObjectsAndListsOfObjects() {
        var statistics = TagStatistics()
        statistics.add(line: #"{"id":"1","result":{"meta":{"topic":"food","tags":["a","b"]},"n":3}}"#)
        statistics.add(line: #"{"id":"2","result":{"items":[{"name":"apple","tags":["x"]},{"name":"pear","tags":["x","y"]}],"meta":null}}"#)
        #expect(statistics.tagCounts["meta.topic"] == ["food": 1])
        #expect(statistics.tagCounts["meta.tags"] == ["a": 1, "b": 1])
        #expect(statistics.tagCounts["n"] == ["3": 1])
        #expect(statistics.tagCounts["items.name"] == ["apple": 1, "pear": 1])
        #expect(statistics.tagCounts["items.tags"] == ["x": 1, "y": 1])
        #expect(statistics.cooccurrences("apple", "pear") == 1)
        // A result that is itself a list of objects.
        statistics.add(line: #"{"id":"3","result":[{"name":"fig"},{"name":"apple"}]}"#)
        #expect(statistics.tagCounts["result.name"] == ["fig": 1, "apple": 1])
    }

    /// A number (a rating field, or a root that is a number) is a value like a string or a Bool, counted by its
    /// JSON text as list elements are.
    @Test func statisticsCountNumbers() {
        var statistics = TagStatistics()
        statistics.add(line: #"{"id":"1","result":{"rating":5,"scores":[1,2]}}"#)
        statistics.add(line: #"{"id":"2","result":{"rating":4,"scores":[2]}}"#)
        statistics.add(line: #"{"id":"3","result":4}"#)
        #expect(statistics.tagCounts["rating"] == ["5": 1, "4": 1])
        #expect(statistics.tagCounts["scores"] == ["1": 1, "2": 2])
        #expect(statistics.tagCounts["result"] == ["4": 1])
        // Integers a Double cannot hold stay apart, as written.
        statistics.add(line: #"{"id":"4","result":{"big":12345678901234567890}}"#)
        statistics.add(line: #"{"id":"5","result":{"big":[12345678901234567891]}}"#)
        #expect(statistics.tagCounts["big"] == ["12345678901234567890": 1, "12345678901234567891": 1])
    }

    /// A record counts once per tag under a name two of its members reach, and lists within lists (of values or
    /// of objects) are counted at any depth.
    @Test func statisticsCountEachRecordOnceAndEveryDepth() {
        var statistics = TagStatistics()
        statistics.add(line: #"{"id":"1","result":{"meta.topic":"x","meta":{"topic":"x"}}}"#)
        statistics.add(line: #"{"id":"2","result":{"items.name":["a"],"items":[{"name":"a"}]}}"#)
        #expect(statistics.records == 2)
        #expect(statistics.tagCounts["meta.topic"] == ["x": 1])
        #expect(statistics.tagCounts["items.name"] == ["a": 1])
        statistics.add(line: #"{"id":"3","result":{"l":[[{"name":"deep"}]],"m":[["p",["q",["r"]]]]}}"#)
        #expect(statistics.tagCounts["l.name"] == ["deep": 1])
        #expect(statistics.tagCounts["m"] == ["p": 1, "q": 1, "r": 1])
        #expect(statistics.cooccurrences("p", "r") == 1)
    }

    /// A month is the seven bytes checked: a combining mark after them does not make another month.
    @Test func statisticsMonthsAreTheirBytes() {
        var statistics = TagStatistics()
        statistics.add(line: #"{"id":"1","result":{"a":"x"},"date":"2024-05\u0301-01"}"#)
        statistics.add(line: #"{"id":"2","result":{"a":"x"},"date":"2024-05-02"}"#)
        #expect(statistics.monthCounts == ["2024-05": 2])
    }

    /// Line breaks, tabs, terminal escapes and direction controls in tags and names are written as escapes, so
    /// the text report's rows are the records' own.
    @Test func statisticsTextEscapesControls() {
        var statistics = TagStatistics()
        statistics.add(line: #"{"id":"1","result":{"tags":["evil\n  99\tfake","x\u001b[31mred","\u202eabc"],"fi\neld":"v"}}"#)
        let text = statistics.text(limit: 10)
        #expect(!text.contains("\u{1B}") && !text.contains("\u{202E}") && !text.contains("\t99"), "\(text)")
        #expect(text.contains("evil\\n 99\\tfake") && text.contains("x\\u{1B}[31mred") && text.contains("fi\\neld:"), "\(text)")
    }
}

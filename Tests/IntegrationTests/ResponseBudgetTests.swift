import Foundation
import Testing

/// Open arrays cannot run away: repeated elements close the array, and a response that keeps growing stops
/// at the schema's default token budget with an error line, on the real model through `fm tag`.
@Suite("Runaway structures end", .serialized, .timeLimit(.minutes(10)))
struct ResponseBudgetTests {
    /// Runs `fm tag` on one text with a schema file; returns the single output line.
    private func tag(schema: String, text: String, arguments: [String] = []) throws -> [String: Any] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fm-budget-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let schemaURL = directory.appendingPathComponent("schema.json")
        let outputURL = directory.appendingPathComponent("out.jsonl")
        try Data(schema.utf8).write(to: schemaURL)
        let run = try TagCommandTests.run(["tag", "--schema", schemaURL.path, "--no-cache", "--output", outputURL.path] + arguments + [text])
        let lines = try TagCommandTests.lines(outputURL)
        try #require(lines.count == 1, "one line per text")
        // 2: the job finished, and its one line is an error line.
        #expect(run.status == (lines[0]["error"] == nil ? 0 : 2), "\(run.status) \(run.stderr)")
        return lines[0]
    }

    /// A route with an unbounded array of points used to fill the 4,096-token window (95 s) on the tiny model,
    /// writing the same point again and again; now the array closes and the value is complete.
    @Test func anOpenArrayOfObjectsEndsWithAValue() throws {
        let schema = #"""
            {"type":"object","properties":{"name":{"type":"string"},"description":{"type":"string"},
             "points":{"type":"array","items":{"type":"object","properties":{"latitude":{"type":"number"},
             "longitude":{"type":"number"}},"required":["latitude","longitude"]}}},
             "required":["name","description","points"]}
            """#
        let line = try tag(schema: schema, text: "The hiking trail runs from the old mill along the river to the lighthouse.")
        let result = try #require(line["result"] as? [String: Any], "a value, not an error: \(line)")
        #expect(result["name"] is String && result["description"] is String)
        let points = try #require(result["points"] as? [[String: Any]], "\(result)")
        for point in points { #expect(point["latitude"] is NSNumber && point["longitude"] is NSNumber, "\(point)") }
        let texts = points.map { "\($0["latitude"]!),\($0["longitude"]!)" }
        for index in texts.indices.dropFirst(2) {
            #expect(!(texts[index] == texts[index - 1] && texts[index] == texts[index - 2]), "three identical points: \(texts)")
        }
    }

    /// A definition that only names itself allows no value, so its optional property is left out; reading the
    /// schema's choices once followed that chain without end and crashed the process.
    @Test func aDefinitionThatOnlyNamesItselfIsLeftOut() throws {
        let schema = ##"{"type":"object","properties":{"x":{"$ref":"#/$defs/A"},"label":{"enum":["tea","coffee"]}},"required":["label"],"$defs":{"A":{"$ref":"#/$defs/A"}}}"##
        let line = try tag(schema: schema, text: "I love tea.")
        let result = try #require(line["result"] as? [String: Any], "a value, not an error: \(line)")
        #expect(result["x"] == nil && ["tea", "coffee"].contains(result["label"] as? String), "\(result)")
    }

    /// A schema that demands more than its default budget gets a `response-budget` error line naming the
    /// budget and how to raise it, instead of running to the end of the context window. The constant is
    /// 400 bytes of hieroglyphs, about 4 tokens each, while the budget reckons with about 3 bytes per token.
    @Test func aResponseBeyondTheDefaultBudgetIsAnErrorLine() throws {
        let glyphs = String(repeating: "\u{13000}\u{13001}\u{13002}\u{13003}", count: 25)
        let schema = #"{"type":"object","properties":{"glyphs":{"const":""# + glyphs
            + #""},"done":{"type":"boolean"}},"required":["glyphs","done"]}"#
        let line = try tag(schema: schema, text: "Write the glyphs.")
        let error = try #require(line["error"] as? [String: Any], "an error line: \(line)")
        #expect(error["code"] as? String == "response-budget", "\(error)")
        #expect((error["message"] as? String)?.contains("--max-tokens") == true, "\(error)")
        // A budget set with the option ends the same way, under the same code.
        let set = try tag(schema: schema, text: "Write the glyphs.", arguments: ["--max-tokens", "40"])
        let setError = try #require(set["error"] as? [String: Any], "an error line: \(set)")
        #expect(setError["code"] as? String == "response-budget", "\(setError)")
        #expect((setError["message"] as? String)?.contains("40 tokens set with --max-tokens") == true, "\(setError)")
        // The option the message names raises the budget.
        let raised = try tag(schema: schema, text: "Write the glyphs.", arguments: ["--max-tokens", "2048"])
        #expect((raised["result"] as? [String: Any])?["glyphs"] as? String == glyphs, "\(raised)")
    }
}

import FMTagging
import Foundation
import FMDecoding
import FoundationModels
import Testing

@Suite struct TaggingRecordTests {
    @Test func everyBadLineGetsAnError() throws {
        var input = Array("plain text\n{\"id\":\"a\",\"text\":\"hello\",\"date\":\"2020-01-02\"}\n{broken\n{\"id\":7,\"text\":\"\"}\n".utf8)
        input += [0xFF, 0xFE, 0x0A]
        let records = TaggingRecord.parse(input: input)
        #expect(records.count == 5)
        #expect(try records[0].text.get() == "plain text")
        #expect(records[1].id == "a")
        #expect(records[1].extraFields.map(\.key) == ["date"])
        guard case .failure(let malformed) = records[2].text else { Issue.record("expected an error"); return }
        #expect(malformed.code == "malformed-json")
        #expect(records[3].id == "7")
        guard case .failure(let empty) = records[3].text else { Issue.record("expected an error"); return }
        #expect(empty.code == "empty-text")
        guard case .failure(let utf8) = records[4].text else { Issue.record("expected an error"); return }
        #expect(utf8.code == "invalid-utf8")
    }

    /// An escaped lone surrogate is no character: read as U+FFFD, the record would be tagged changed without a
    /// word, so its line is an error line that keeps its plain id, whether the surrogate is in the text or in a
    /// field that would be copied.
    @Test func aLoneSurrogateEscapeIsAnErrorLine() throws {
        let lines = [#"{"id":"s","text":"lone \ud800 surrogate"}"#, #"{"id":"k","text":"fine","extra":"\udbff"}"#,
                     #"{"id":"l","text":"a low half \udc00 alone"}"#, #"{"id":"p","text":"a pair \ud83d\ude00 is one character"}"#]
        let records = lines.enumerated().map { TaggingRecord.parse(line: Array($1.utf8), lineNumber: $0 + 1) }
        #expect(records.map(\.id) == ["s", "k", "l", "p"])
        for record in records.prefix(3) {
            guard case .failure(let failure) = record.text else { Issue.record("\(record.id) was read"); continue }
            #expect(failure.code == "malformed-json")
            #expect(failure.message.contains("surrogate"), "\(failure.message)")
        }
        #expect(try records[3].text.get() == "a pair 😀 is one character")
    }

    /// A JSON line that is not UTF-8 keeps a plainly written id that is whole UTF-8, so its error line names the
    /// record; an id with the bad bytes in it, or plain text, is named by its line number.
    @Test func aLineThatIsNotUTF8KeepsAWholeID() {
        let lines: [[UInt8]] = [Array(#"{"id":"j","text":"bad "#.utf8) + [0xFF] + Array(#" byte"}"#.utf8),
                                Array(#"{"id":"k"#.utf8) + [0xFF] + Array(#"","text":"x"}"#.utf8),
                                Array("caf".utf8) + [0xE9]]
        let records = lines.enumerated().map { TaggingRecord.parse(line: $1, lineNumber: $0 + 1) }
        #expect(records.map(\.id) == ["j", "2", "3"])
        for record in records {
            guard case .failure(let failure) = record.text else { Issue.record("read \(record.id)"); continue }
            #expect(failure.code == "invalid-utf8")
        }
    }

    /// An id is kept as the record's own: a Boolean is written as a string, as a number is, rather than replaced by
    /// the line number (which names another record); an object or a list is an error line; null is no id.
    @Test func anIDThatIsNoStringOrNumber() throws {
        let lines = [#"{"id": true, "text": "a"}"#, #"{"id": {"k": 1}, "text": "b", "label": "x"}"#, #"{"id": [1], "text": "c"}"#, #"{"id": null, "text": "d"}"#]
        let records = lines.enumerated().map { TaggingRecord.parse(line: Array($1.utf8), lineNumber: $0 + 1) }
        #expect(records.map(\.id) == ["true", "2", "3", "4"])
        #expect(try records[0].text.get() == "a")
        #expect(try records[3].text.get() == "d")
        for record in records[1...2] {
            guard case .failure(let failure) = record.text else { Issue.record("accepted \(record)"); continue }
            #expect(failure.code == "invalid-id" && failure.message.contains("Line \(record.id)"), "\(failure)")
        }
        // Its other fields are copied to its error line, as for every error line.
        #expect(records[1].extraFields.map(\.key) == ["label"])
    }

    /// An integer id past a Double's exact range (a database key, a post id) is kept digit for digit, so two
    /// records whose ids differ in the last digit stay two; the id is read from the top level only.
    @Test func aLargeIntegerIDIsKeptAsWritten() {
        let lines = [
            #"{"id": 1234567890123456789, "text": "a"}"#,
            #"{"id":1234567890123456788,"text":"b"}"#,
            #"{"text": "an \"id\": 5 in the text", "meta": {"id": 99999999999999999999}, "id": -98765432109876543210}"#,
            #"{"id": 12, "text": "c"}"#,
            #"{"id": 1.5e300, "text": "d"}"#,
        ]
        let ids = lines.enumerated().map { TaggingRecord.parse(line: Array($1.utf8), lineNumber: $0 + 1).id }
        #expect(ids == ["1234567890123456789", "1234567890123456788", "-98765432109876543210", "12", String(1.5e300)], "\(ids)")
    }

    /// Other fields are copied to the output as the input wrote them where a parsed number would change (16
    /// digits or more, nested ones too); shorter numbers and everything else are written as before.
    @Test func copiedFieldsKeepTheirLongNumbers() {
        let line = #"{"id":"a","text":"t","tweet_id":1234567890123456789,"meta":{"ids":[9007199254740993, 2]},"n":1.50,"name":"x","tweet_id":1234567890123456787}"#
        let record = TaggingRecord.parse(line: Array(line.utf8), lineNumber: 1)
        let output = TaggingOutput.line(for: record, outcome: .success(GeneratedContent(kind: .structure(properties: [:], orderedKeys: []))))
        #expect(output == #"{"id":"a","text":"t","tweet_id":1234567890123456787,"meta":{"ids":[9007199254740993, 2]},"n":1.5,"name":"x","result":{}}"#,
                "\(output)")
        let short = TaggingRecord.parse(line: Array(#"{"text":"t","n":123456789012345,"s":"1234567890123456789"}"#.utf8), lineNumber: 2)
        #expect(TaggingOutput.line(for: short, outcome: .failure(.init(code: "c", message: "m")))
                == #"{"id":"2","text":"t","n":123456789012345,"s":"1234567890123456789","error":{"code":"c","message":"m"}}"#)
        // Of repeated keys the last counts, a short one too; a field given another value is written as it is now.
        var repeated = TaggingRecord.parse(line: Array(#"{"text":"t","n":12345678901234567,"n":5,"m":12345678901234567}"#.utf8), lineNumber: 3)
        #expect(TaggingOutput.line(for: repeated, outcome: .failure(.init(code: "c", message: "m"))).contains(#""n":5,"m":12345678901234567,"#))
        repeated.extraFields = repeated.extraFields.map { (key: $0.key, value: $0.key == "m" ? GeneratedContent(kind: .number(7)) : $0.value) }
        #expect(TaggingOutput.line(for: repeated, outcome: .failure(.init(code: "c", message: "m"))).contains(#""n":5,"m":7,"#))
    }

    /// The scanner gives an integer's text only for a well-formed top-level member.
    @Test func integerLiteralsAreReadFromTheTopLevelOnly() {
        #expect(JSONLiteral.integer(ofKey: "id", in: #" { "id" : 42 } "#) == "42")
        #expect(JSONLiteral.integer(ofKey: "id", in: #"{"a":[{"id":1}],"b":"}","id":7,"id":8}"#) == "8", "the last of repeated keys")
        #expect(JSONLiteral.integer(ofKey: "id", in: #"{"a":{"id":1}}"#) == nil)
        #expect(JSONLiteral.integer(ofKey: "id", in: #"{"id":"42"}"#) == nil)
        #expect(JSONLiteral.integer(ofKey: "id", in: #"{"id":4.2}"#) == nil)
        #expect(JSONLiteral.integer(ofKey: "id", in: #"{"id":-}"#) == nil)
        #expect(JSONLiteral.integer(ofKey: "id", in: #"[{"id":1}]"#) == nil)
        #expect(JSONLiteral.integer(ofKey: "id", in: #"{"id":1"#) == "1")
    }

    /// A byte-order mark before the first line (files saved by some Windows editors), or before a later one
    /// (two such files joined with `cat`), does not turn that line's JSON into text to tag.
    @Test func aByteOrderMarkIsNotPartOfTheRecord() throws {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let input = mark + Array("{\"id\":\"a\",\"text\":\"hello\",\"date\":\"2024-01-02\"}\r\nsecond\n".utf8)
            + mark + Array("{\"id\":\"b\",\"text\":\"again\"}\n".utf8) + mark + Array("\n".utf8)
        let records = TaggingRecord.parse(input: input)
        #expect(records.map(\.id) == ["a", "2", "b"])
        #expect(try records[0].text.get() == "hello")
        #expect(try records[2].text.get() == "again")
        #expect(records[0].extraFields.map(\.key) == ["date"])
    }

    /// A number past a Double's range is valid JSON the reader cannot hold: the error line says so, with the
    /// record's id when it is written plainly.
    @Test func aNumberOutOfRangeIsNamedAndTheIDKept() {
        let record = TaggingRecord.parse(line: Array(#"{"id":"n1","text":"tea","n":1e400}"#.utf8), lineNumber: 3)
        #expect(record.id == "n1")
        guard case .failure(let failure) = record.text else { Issue.record("the line was read"); return }
        #expect(failure.code == "malformed-json")
        #expect(failure.message == "Line 3 is not a JSON object fm can read: The number 1e400 is out of range at offset 33.")
        #expect(TaggingRecord.parse(line: Array(#"{"id":12345678901234567890,"n":-1e999}"#.utf8), lineNumber: 1).id == "12345678901234567890")
        #expect(TaggingRecord.parse(line: Array(#"{"id":"a\"b","n":1e999}"#.utf8), lineNumber: 5).id == "5", "an escaped id is not guessed")
    }

    /// A line cut short (a writer stopped mid-line) says so, and keeps its id when that was written whole.
    @Test func aLineCutShortKeepsItsID() {
        let cut = TaggingRecord.parse(line: Array(#"{"id":"j2","text":"truncated json line""#.utf8), lineNumber: 4)
        #expect(cut.id == "j2")
        guard case .failure(let failure) = cut.text else { Issue.record("the line was read"); return }
        #expect(failure.code == "malformed-json")
        #expect(failure.message == "Line 4 is not a whole JSON object: it ends before the object closes.")
        #expect(TaggingRecord.parse(line: Array(#"{"text":"t","id":42,"#.utf8), lineNumber: 2).id == "42")
        #expect(TaggingRecord.parse(line: Array(#"{"text":"t","id":42"#.utf8), lineNumber: 2).id == "2", "42 may be the start of 420")
        #expect(TaggingRecord.parse(line: Array(#"{"text":"t","id":"ab"#.utf8), lineNumber: 3).id == "3", "an id cut short is no id")
        #expect(TaggingRecord.parse(line: Array(#"[1, 2"#.utf8), lineNumber: 5).id == "5")
        #expect(TaggingRecord.parse(line: Array(#"{"id":12345678901234567890,"text":"t""#.utf8), lineNumber: 6).id == "12345678901234567890")
        #expect(TaggingRecord.parse(line: Array(#"{"id":true,"text":"t"#.utf8), lineNumber: 7).id == "true")
    }

    /// A file is scored as one kind of answer, the one more of its lines give: a label among objects of fields
    /// would otherwise become a field of its own, with that one label as its only choice and always right.
    @Test func labelledParsingScoresOneKindOfGold() {
        func parse(_ lines: [String]) -> (examples: [LabelledExample], unlabelled: [String]) {
            LabelledExample.parseReportingUnlabelled(input: Array(lines.map { $0 + "\n" }.joined().utf8))
        }
        let fields = parse([#"{"id":"1","text":"a","label":{"topic":"x","tone":"y"}}"#, #"{"id":"2","text":"b","label":"neg"}"#,
                            #"{"id":"3","text":"c","label":{"topic":"z","tone":"y"}}"#])
        #expect(fields.examples.map(\.record.id) == ["1", "3"])
        #expect(fields.unlabelled == [
            "Record 2's \"label\" is one label, while 2 of the file's lines give objects of fields; a file is scored as one kind of answer.",
        ])
        let schema = EvaluationTask.schema(for: fields.examples)
        #expect(schema.resolving(schema.root)?.propertyNames == ["tone", "topic"])
        // One label and a list of one say the same; a list of two in a single-label file is refused.
        let singles = parse([#"{"id":"1","text":"a","label":"x"}"#, #"{"id":"2","text":"b","label":["y"]}"#,
                             #"{"id":"3","text":"c","label":["x","y"]}"#, #"{"id":"4","text":"d","label":"y"}"#])
        #expect(singles.examples.map(\.gold) == [.single("x"), .single("y"), .single("y")])
        #expect(singles.unlabelled == [
            "Record 3's \"label\" is a list of labels, while 3 of the file's lines give one label; a file is scored as one kind of answer.",
        ])
        // Lines reported rather than scored do not choose the kind: two empty objects beside one label.
        let reported = parse([#"{"id":"1","text":"a","label":"x"}"#, #"{"id":"2","text":"b","label":{}}"#,
                              #"{"id":"3","text":"c","label":{"f":""}}"#])
        #expect(reported.examples.map(\.record.id) == ["1"])
        #expect(reported.unlabelled == ["Record 2's \"label\" object is empty.", "Record 3's \"label\" field \"f\" is empty."])
        let sets = parse([#"{"id":"1","text":"a","labels":["x","y"]}"#, #"{"id":"2","text":"b","labels":"y"}"#,
                          #"{"id":"3","text":"c","labels":[]}"#])
        #expect(sets.examples.map(\.gold) == [.set(["x", "y"]), .set(["y"]), .set([])])
        #expect(sets.unlabelled.isEmpty)
    }

    /// `fm eval` scores only lines with a gold answer, and is told why each other line is not one.
    @Test func labelledParsingSaysWhyALineIsNotScored() {
        let input = Array("""
            {"id":"a","text":"hi","label":"x"}
            {"id":"b","text":"hi"}
            plain text
            {broken

            {"id":"c","text":"hi","labels":["x","y"]}
            {"id":"d","text":"hi","label":{"topic":"x","urgent":true}}
            {"id":"e","text":"hi","label":4}
            {"id":"f","text":"hi","label":false}
            {"id":"g","text":"hi","label":null}
            {"id":"h","text":"hi","label":{"topic":"x","aspects":["food"]}}
            {"id":"i","text":"hi","label":{}}
            {"id":"j","text":"hi","labels":["x",{"y":1}]}
            {"id":"k","text":"hi","label":" "}
            {"id":"l","text":"hi","labels":["x",""]}
            {"id":"m","text":"hi","label":{"topic":""}}
            """.utf8)
        // More lines have `label`, so that is the file's gold field: a line with only `labels` is not scored.
        let (examples, unlabelled) = LabelledExample.parseReportingUnlabelled(input: input)
        let aside = " It has \"labels\", which fewer lines of the file have; --label-key chooses the field."
        #expect(examples.map(\.record.id) == ["a", "e", "f"])
        #expect(examples.map(\.gold) == [.single("x"), .single("4"), .single("false")])
        #expect(unlabelled == [
            "Record b has no \"label\" string, list or object.",
            "Record 3 has no \"label\" string, list or object.",
            "Line 4 is not a JSON object fm can read: Expected a property name in quotes but found 'b' at offset 1.",
            "Record c has no \"label\" string, list or object." + aside,
            "Record d's \"label\" is an object of fields, while 3 of the file's lines give one label; a file is scored as one kind of answer.",
            "Record g has no \"label\" string, list or object.",
            "Record h's \"label\" field \"aspects\" is not a string, number or Boolean.",
            "Record i's \"label\" object is empty.",
            "Record j has no \"label\" string, list or object." + aside,
            "Record k's \"label\" is empty.",
            "Record l has no \"label\" string, list or object." + aside,
            "Record m's \"label\" field \"topic\" is empty.",
        ])
        #expect(LabelledExample.parse(input: input).map(\.record.id) == ["a", "e", "f"])
        // A file of (mostly) `labels` lines is read by that field.
        let sets = LabelledExample.parseReportingUnlabelled(input: Array("""
            {"id":"c","text":"hi","labels":["x","y"]}
            {"id":"j","text":"hi","labels":["x",{"y":1}]}
            {"id":"l","text":"hi","labels":["x",""]}
            {"id":"n","text":"hi"}
            {"id":"s","text":"hi","label":"x"}
            {"id":"t","text":"hi","labels":["x","<error>"]}
            """.utf8))
        #expect(sets.examples.map(\.gold) == [.set(["x", "y"])])
        #expect(sets.unlabelled == [
            "Record j's \"labels\" list holds something other than strings, numbers and Booleans.",
            "Record l's \"labels\" list holds an empty label.",
            "Record n has no \"labels\" string, list or object.",
            "Record s has no \"labels\" string, list or object. It has \"label\", which fewer lines of the file have; --label-key chooses the field.",
            "Record t's \"labels\" holds \"<error>\", which a report reserves for a failed record or a missing field.",
        ])
        // The names a report counts failures and missing fields under are not labels: as gold, a failed record
        // would count as right.
        let reserved = LabelledExample.parseReportingUnlabelled(input: Array("""
            {"id":"a","text":"hi","label":"<error>"}
            {"id":"b","text":"hi","label":{"topic":"x","tone":"<missing>"}}
            {"id":"c","text":"hi","label":"error"}
            {"id":"d","text":"hi","label":"\\\\<error>"}
            {"id":"e","text":"hi","label":"<error>x"}
            """.utf8))
        #expect(reserved.examples.map(\.gold) == [.single("error"), .single("<error>x")])
        // A predicted `<error>` is reported as `\<error>` (EvaluationReport.reportedLabel), so that spelling is refused too.
        #expect(reserved.unlabelled == [
            "Record a's \"label\" holds \"<error>\", which a report reserves for a failed record or a missing field.",
            "Record b's \"label\" holds \"<missing>\", which a report reserves for a failed record or a missing field.",
            "Record d's \"label\" holds \"\\<error>\", which a report reserves for a failed record or a missing field.",
        ])
        let keyed = LabelledExample.parseReportingUnlabelled(input: input, labelKey: "gold")
        #expect(keyed.examples.isEmpty)
        #expect(keyed.unlabelled.first == "Record a has no \"gold\" string, list or object.")
    }

    /// Values as written: an array's elements, and a value on one line.
    @Test func jsonLiteralsAreReadAsWritten() {
        #expect(JSONLiteral.elements(in: #" [ 1 , "a,]" , {"b":[2,3]}, [] ,null] "#) == ["1", #""a,]""#, #"{"b":[2,3]}"#, "[]", "null"])
        #expect(JSONLiteral.elements(in: "[]") == [])
        #expect(JSONLiteral.elements(in: #"{"a":1}"#) == nil)
        #expect(JSONLiteral.elements(in: #"[1,{"a":2"#) == nil, "a cut-off element")
        #expect(JSONLiteral.compacted("{\n  \"a b\": [1, \"x \\\" y\"],\r\n\t\"c\": true\n}") == #"{"a b":[1,"x \" y"],"c":true}"#)
    }

    /// A number label is named by its JSON text as written, also past the digits a `Double` keeps.
    @Test func aLongNumberLabelKeepsItsDigits() {
        let examples = LabelledExample.parse(input: Array("""
            {"text":"a","label":12345678901234567890}
            {"text":"b","label":9007199254740993}
            {"text":"c","label":4}
            {"text":"d","label":-12.50}
            {"text":"e","label":1.0000000000000000}
            {"text":"f","label":1234567890123456.0}
            {"text":"g","label":-9007199254740993}
            """.utf8))
        #expect(examples.map(\.gold) == [.single("12345678901234567890"), .single("9007199254740993"), .single("4"), .single("-12.5"),
                                         .single("1"), .single("1234567890123456"), .single("-9007199254740993")])
        // In fields and lists alike.
        let fields = LabelledExample.parse(input: Array(#"{"text":"a","label":{"a":9007199254740993,"b":2}}"#.utf8))
        #expect(fields.map(\.gold) == [.fields(["a": "9007199254740993", "b": "2"])])
        let sets = LabelledExample.parse(input: Array(#"{"text":"a","labels":[9007199254740993,"x",2]}"#.utf8))
        #expect(sets.map(\.gold) == [.set(["9007199254740993", "x", "2"])])
        // A predicted number is named the same way, as the whole result, in its fields and lists; of repeated keys
        // the last counts.
        func written(_ json: String) -> GeneratedContent {
            JSONLiteral.integersAsWritten(in: try! GeneratedContent(json: json), json: json)
        }
        let result = written(#"{"label":12345678901234567890,"n":1.0000000000000000,"s":"x","l":[9007199254740993,3],"r":12345678901234567890,"r":5}"#)
        #expect(EvaluationTask.predictedFields(in: result) == ["label": "12345678901234567890", "n": "1", "s": "x", "r": "5"])
        #expect(EvaluationTask.predictedSet(in: result, field: "l") == ["9007199254740993", "3"])
        #expect(written("-12345678901234567890") == GeneratedContent("-12345678901234567890"))
        #expect(JSONLiteral.exactInteger("9007199254740991") == nil && JSONLiteral.exactInteger("9007199254740992") == "9007199254740992")
    }

    @Test func resumeReadsOnlyWholeLines() {
        let record = TaggingRecord(id: "x", text: .success("t"))
        let line = TaggingOutput.line(for: record, outcome: .failure(.init(code: "c", message: "m")))
        let output = Array((line + "\n" + "{\"id\":\"y\",\"te").utf8)
        let finished = TaggingOutput.finishedRecords(in: output)
        #expect(finished.ids == ["x": 1] && finished.failed == ["x": [true]])
        #expect(finished.validLength == line.utf8.count + 1)
    }

    /// Only a killed job's cut-off last line may follow the finished lines: a whole line of something else, or a
    /// last line that does not begin as ours do, is named, since resuming would cut it off with all after it.
    @Test func resumeNamesALineOfSomethingElse() {
        let line = TaggingOutput.line(for: TaggingRecord(id: "x", text: .success("t")), outcome: .failure(.init(code: "c", message: "m")))
        func stray(_ text: String) -> Int? {
            let bytes = Array(text.utf8)
            return TaggingOutput.strayLine(in: bytes, validLength: TaggingOutput.finishedRecords(in: bytes).validLength)
        }
        #expect(stray(line + "\n") == nil)
        #expect(stray(line + "\n{\"id\":\"y\",\"te") == nil)
        #expect(stray(line + "\n" + line) == nil, "an unterminated whole line is redone")
        #expect(stray("") == nil)
        #expect(stray("my notes\nmore notes\n") == 1)
        #expect(stray(line + "\nmy notes\n" + line + "\n") == 2)
        #expect(stray(line + "\n\nmy notes") == 3)
        #expect(stray("{\"a\":1}\n") == 1, "JSON of another tool")
        #expect(stray(line + "\n{todo}") == 2, "a note that merely begins with a brace")
        #expect(stray(line + "\n{\"id\":\"y\",\"te\n") == nil, "a cut-off line an editor ended with a newline")
        #expect(stray(line + "\n{\"i") == nil, "cut off within the opening")
        #expect(stray(line + "\n\0\0\0\0") == nil, "NUL bytes a crash left")
        #expect(stray(line + "\n{\"id\":\"y\",\"te\n{\"id\":\"z\"\n") == 2, "two cut lines are not one killed job's")
        #expect(stray("{\"id\":\"a\",\"note\":\"keep\"}") == 1, "another tool's whole line that begins with an id")
        #expect(stray("{\"id\":\"a\",\"note\":\"keep\"}\n") == 1, "the same, ended with a newline")
        #expect(stray(line + "\n{\"id\":\"b\",\"note\":\"keep\"}\n") == 2)
        #expect(stray(line + "\n" + line + "\n") == nil)
        #expect(stray(line + "\n\n  \n{\"id\":\"y\",\"te") == nil, "a cut-off line after blank lines")
        #expect(stray(line + "\n\n\nmy notes\n") == 4)
    }

    /// Blank lines after the last finished line (an editor's, or `echo >> out.jsonl`) are cut by a resume, so the
    /// lines it appends follow a finished line and the output stays JSONL.
    @Test func resumeCutsBlankLinesAfterTheLastFinishedLine() {
        let line = TaggingOutput.line(for: TaggingRecord(id: "x", text: .success("t")), outcome: .failure(.init(code: "c", message: "m")))
        for tail in ["\n", "   \n", "\n\n\r\n", "\n\t"] {
            let output = Array((line + "\n" + tail).utf8)
            let finished = TaggingOutput.finishedRecords(in: output)
            #expect(finished.ids == ["x": 1])
            #expect(finished.validLength == line.utf8.count + 1, "tail \(tail.debugDescription)")
            #expect(TaggingOutput.strayLine(in: output, validLength: finished.validLength) == nil)
        }
    }

    /// A finished output's results are checked against the job's schema, as its job record is gone.
    @Test func resumeNamesAResultOfAnotherSchema() throws {
        let schema = GenerationSchema(root: .object(.init(name: "R", properties: [
            .init(name: "topic", node: .string(.init())), .init(name: "note", node: .string(.init()), isOptional: true),
        ])))
        func misfit(_ results: [String]) -> Int? {
            let lines = results.enumerated().map { #"{"id":"\#($0)","text":"t","result":\#($1)}"# + "\n" }
            let bytes = Array(lines.joined().utf8)
            return TaggingOutput.misfitResult(in: bytes, validLength: bytes.count, schema: schema)?.line
        }
        #expect(misfit([#"{"topic":"a"}"#, #"{"topic":"b","note":"n"}"#]) == nil)
        #expect(misfit([#"{"topic":"a"}"#, #"{"actions":[],"topics":[]}"#]) == 2)
        #expect(misfit([#"{"note":"n"}"#]) == 1)
        #expect(misfit([#""a""#]) == 1)
        let errorLine = Array(#"{"id":"1","error":{"code":"c","message":"m"}}"#.utf8) + [10]
        #expect(TaggingOutput.misfitResult(in: errorLine, validLength: errorLine.count, schema: schema) == nil)
    }

    /// An output whose first line carries a byte-order mark (saved by an editor), or with a blank line between
    /// finished ones, resumes after its last finished line rather than being cut where the scan stopped.
    @Test func resumeReadsPastAByteOrderMark() {
        let record = TaggingRecord(id: "x", text: .success("t"))
        let line = TaggingOutput.line(for: record, outcome: .failure(.init(code: "c", message: "m")))
        let output = [0xEF, 0xBB, 0xBF] + Array((line + "\n\n" + line + "\n").utf8)
        let finished = TaggingOutput.finishedRecords(in: output)
        #expect(finished.ids == ["x": 2], "a blank line between finished ones keeps the later one")
        #expect(finished.validLength == output.count)
    }

    /// A resumed job's exit status covers the error lines it kept: those of its own records, each finished line
    /// accounting for the earliest record with its id, and not those of ids the input no longer has.
    @Test func resumeCountsTheErrorLinesItKeeps() {
        func line(_ id: String, failed: Bool) -> String {
            TaggingOutput.line(for: TaggingRecord(id: id, text: .success("t")),
                               outcome: failed ? .failure(.init(code: "c", message: "m")) : .success(GeneratedContent(kind: .string("x"))))
        }
        let output = [line("a", failed: false), line("b", failed: true), line("a", failed: true), line("gone", failed: true),
                      line("b", failed: true)]
        let finished = TaggingOutput.finishedRecords(in: Array(output.map { $0 + "\n" }.joined().utf8))
        #expect(finished.ids == ["a": 2, "b": 2, "gone": 1])
        #expect(finished.failed == ["a": [false, true], "b": [true, true], "gone": [true]])
        let records = ["a", "b", "c"].map { TaggingRecord(id: $0, text: .success("t")) }
        #expect(TaggingOutput.keptFailures(records, failed: finished.failed) == 1, "b's first line; a's first line is a result")
        let repeated = ["a", "a", "b", "b", "b"].map { TaggingRecord(id: $0, text: .success("t")) }
        #expect(TaggingOutput.keptFailures(repeated, failed: finished.failed) == 3)
    }

    /// An input that repeats an id (two files concatenated) resumes each occurrence once: the finished lines
    /// account for the earliest records with their ids, and the rest are still to do.
    @Test func resumeKeepsRecordsWithARepeatedID() {
        let records = ["a", "b", "a", "c", "a"].enumerated().map { TaggingRecord(id: $1, text: .success("text \($0)")) }
        let written = records.prefix(3).map { TaggingOutput.line(for: $0, outcome: .failure(.init(code: "c", message: "m"))) + "\n" }
        let finished = TaggingOutput.finishedRecords(in: Array(written.joined().utf8))
        #expect(finished.ids == ["a": 2, "b": 1])
        let left = TaggingOutput.unfinished(records, finished: finished.ids)
        #expect(left.map { try? $0.text.get() } == ["text 3", "text 4"])
    }

    /// Output of another input whose ids happen to match (plain lines are numbered) is told apart by its texts, each
    /// finished line compared with the record it would stand for; lines without a text are not evidence.
    @Test func resumeTellsAnotherInputsLinesByTheirText() {
        let written = [TaggingRecord(id: "1", text: .success("alpha one")), TaggingRecord(id: "2", text: .success("beta two")),
                       TaggingRecord(id: "3", text: .failure(.init(code: "invalid-utf8", message: "m")))]
            .map { TaggingOutput.line(for: $0, outcome: .failure(.init(code: "c", message: "m"))) + "\n" }
        let finished = TaggingOutput.finishedRecords(in: Array(written.joined().utf8))
        #expect(finished.texts == ["1": ["alpha one"], "2": ["beta two"], "3": [nil]])
        let same = ["alpha one", "beta two", "gamma", "delta"].enumerated().map { TaggingRecord(id: "\($0 + 1)", text: .success($1)) }
        #expect(TaggingOutput.foreignLine(same, texts: finished.texts) == nil)
        let other = ["alpha one", "my printer is broken", "refund please"].enumerated().map { TaggingRecord(id: "\($0 + 1)", text: .success($1)) }
        let foreign = TaggingOutput.foreignLine(other, texts: finished.texts)
        #expect(foreign?.record.id == "2" && foreign?.written == "beta two")
    }

    /// Finished lines of ids this input does not have, or more lines of an id than it has records of it, are
    /// another input's: resuming would keep them beside this input's lines.
    @Test func resumeFindsLinesOfNoRecord() {
        let records = ["a", "b", "a"].map { TaggingRecord(id: $0, text: .success("text")) }
        #expect(TaggingOutput.surplusLine(records, finished: [:]) == nil)
        #expect(TaggingOutput.surplusLine(records, finished: ["a": 2, "b": 1]) == nil)
        #expect(TaggingOutput.surplusLine(records, finished: ["a": 1]) == nil)
        let extra = TaggingOutput.surplusLine(records, finished: ["a": 3, "b": 1])
        #expect(extra?.id == "a" && extra?.lines == 3)
        let foreign = TaggingOutput.surplusLine(records, finished: ["a": 1, "z": 1])
        #expect(foreign?.id == "z" && foreign?.lines == 1)
    }

    /// A record to do that comes before a finished one (added at the front since) is found: its line would go
    /// out of input order. The first records finished, as a killed job leaves them, are in order.
    @Test func resumeFindsARecordAheadOfFinishedLines() {
        let records = ["new", "r0", "r1", "r2", "r0"].map { TaggingRecord(id: $0, text: .success("text")) }
        #expect(TaggingOutput.lineOutOfOrder(records, finished: [:]) == nil)
        #expect(TaggingOutput.lineOutOfOrder(records, finished: ["new": 1, "r0": 1]) == nil)
        #expect(TaggingOutput.lineOutOfOrder(records, finished: ["r0": 1, "r1": 1])?.id == "new")
        // The second r0 is the one left to do; the first, finished, precedes it.
        #expect(TaggingOutput.lineOutOfOrder(records, finished: ["new": 1, "r0": 1, "r1": 1, "r2": 1]) == nil)
        #expect(TaggingOutput.lineOutOfOrder(records, finished: ["new": 1, "r0": 2, "r1": 1])?.id == "r2")
    }

    /// Every preset lowers to an object the decoder can enforce, and its JSON Schema text (what `fm eval
    /// --print-schema` and the anchor send) imports back to the same decoder schema.
    @Test(arguments: TaggingPreset.allCases)
    func presetsBuild(_ preset: TaggingPreset) throws {
        let document = try preset.schema.decodingDocument()
        guard case .object(let properties) = document.root else {
            Issue.record("\(preset.rawValue): the root is not an object")
            return
        }
        #expect(!properties.isEmpty, "\(preset.rawValue)")
        let imported = try GenerationSchema.importing(jsonSchema: preset.schema.jsonSchemaString)
        #expect(try imported.schema.decodingDocument() == document, "\(preset.rawValue)")
    }
}

/// What the result cache's keys tell apart.
struct TaggingCacheKeyTests {
    /// Only results that the same configuration would give again are cached: greedy ones.
    @Test func onlyGreedyResultsCountAsDeterministic() {
        let schema = TaggingPreset.contentTagging.schema
        func deterministic(_ useCase: SystemLanguageModel.UseCase, _ options: GenerationOptions, remote: Bool = false) -> Bool {
            var configuration = TaggingConfiguration(model: SystemLanguageModel(useCase: useCase), schema: schema, options: options)
            if remote {
                configuration.remoteEngines = RemoteEngines(models: [
                    ChatCompletionsLanguageModel(endpoint: URL(string: "http://127.0.0.1:9")!, model: "default"),
                ])
            }
            return configuration.isDeterministic
        }
        #expect(deterministic(.general, GenerationOptions(samplingMode: .greedy)))
        #expect(deterministic(.general, GenerationOptions(samplingMode: .random(top: 4), temperature: 0)), "temperature 0 is greedy")
        #expect(deterministic(.general, GenerationOptions(temperature: -1)), "below 0 acts as 0")
        #expect(!deterministic(.contentTagging, GenerationOptions(temperature: 0.5)))
        #expect(!deterministic(.contentTagging, GenerationOptions(samplingMode: .random(probabilityThreshold: 0.9))))
        // No options: the content-tagging use case answers greedily, the general one samples at 0.7,
        // and a server's default is its own.
        #expect(deterministic(.contentTagging, GenerationOptions()))
        #expect(!deterministic(.general, GenerationOptions()))
        #expect(!deterministic(.contentTagging, GenerationOptions(), remote: true))
        #expect(deterministic(.contentTagging, GenerationOptions(samplingMode: .greedy), remote: true))
    }

    @Test func batchedAndOneAtATimeResultsHaveDifferentKeys() {
        let configuration = TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: TaggingPreset.contentTagging.schema)
        let one = TaggingRunner(tagger: Tagger(configuration: configuration), parallel: 1)
        let batched = TaggingRunner(tagger: Tagger(configuration: configuration), parallel: 4)
        #expect(one.cacheKey(for: "a text") != batched.cacheKey(for: "a text"))
        #expect(one.cacheKey(for: "a text") == TaggingRunner(tagger: Tagger(configuration: configuration), parallel: 1).cacheKey(for: "a text"))
        #expect(configuration.fingerprint.contains("levers="))
    }

    /// A result made with the checks off (`fm --guardrails off`) is not served to a job whose checks would block
    /// its text; jobs with the default checks keep the keys they had.
    @Test func resultsMadeWithoutGuardrailsHaveKeysOfTheirOwn() {
        let schema = TaggingPreset.safety.schema
        let checked = TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: schema)
        let unchecked = TaggingConfiguration(
            model: SystemLanguageModel(useCase: .contentTagging, guardrails: .init(checkers: [])), schema: schema)
        #expect(unchecked.fingerprint != checked.fingerprint)
        #expect(!checked.fingerprint.contains("guardrails"))
        #expect(TaggingRunner(tagger: Tagger(configuration: unchecked)).cacheKey(for: "a text")
                != TaggingRunner(tagger: Tagger(configuration: checked)).cacheKey(for: "a text"))
    }

    /// The use case and checks other than the built-in ones change answers, so each keys results of its own;
    /// the content-tagging model with the built-in checks keeps its keys. (Adapters: `AdapterTests`.)
    @Test func theUseCaseAndOtherChecksHaveKeysOfTheirOwn() {
        let schema = TaggingPreset.contentTagging.schema
        let tagging = TaggingConfiguration(model: SystemLanguageModel(useCase: .contentTagging), schema: schema).fingerprint
        let general = TaggingConfiguration(model: SystemLanguageModel(useCase: .general), schema: schema).fingerprint
        let permissive = TaggingConfiguration(
            model: SystemLanguageModel(useCase: .contentTagging, guardrails: .init(checkers: [DenyListChecker(terms: ["x": ["y"]])])),
            schema: schema).fingerprint
        let builtIn = TaggingConfiguration(
            model: SystemLanguageModel(useCase: .contentTagging, guardrails: .init(checkers: [DenyListChecker.builtIn])),
            schema: schema).fingerprint
        #expect(Set([tagging, general, permissive]).count == 3)
        #expect(builtIn == tagging)
        #expect(!tagging.contains("useCase") && !tagging.contains("adapter") && !tagging.contains("guardrails"))
    }

    /// Input read in pieces of any size gives the record lines, numbers and bytes alike, that the whole of it does:
    /// line feeds, `\r\n`, byte-order marks, blank lines and a last line without a line feed, split anywhere.
    @Test func inputSplitAnywhereGivesTheLinesOfTheWhole() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [[UInt8]] = [[0x0A], [0x0D], [0x0D, 0x0A], [0x20], [0x09], [0xEF, 0xBB, 0xBF], Array("ab".utf8), Array("{\"text\":\"x\"}".utf8), [0xC3, 0xA9]]
        for _ in 0..<500 {
            let input = (0..<Int.random(in: 0...40, using: &generator)).flatMap { _ in alphabet.randomElement(using: &generator)! }
            var splitter = TaggingRecord.LineSplitter()
            var lines: [(number: Int, bytes: [UInt8])] = []
            var rest = input[...]
            while !rest.isEmpty {
                let piece = rest.prefix(Int.random(in: 1...8, using: &generator))
                rest = rest.dropFirst(piece.count)
                lines += splitter.lines(completedBy: piece).map { ($0.number, Array($0.bytes)) }
            }
            if let last = splitter.finish() { lines.append((last.number, Array(last.bytes))) }
            let whole = TaggingRecord.lines(in: input).map { ($0.number, Array($0.bytes)) }
            #expect(lines.map(\.number) == whole.map(\.0) && lines.map(\.bytes) == whole.map(\.1), "\(input)")
        }
    }

    /// A line of whitespace of any kind is no record, as a blank one is: no-break and ideographic spaces, vertical
    /// tabs and form feeds; a line with anything else is one, and the numbers count every line.
    @Test func linesOfWhitespaceOnlyAreNoRecords() {
        let input = Array("\u{A0}\u{3000}\n\t\n\u{0B}\u{0C}\n  \u{2003}\r\nreal\n\u{A0}x\u{A0}\n\u{A0}".utf8)
        let lines = TaggingRecord.lines(in: input)
        #expect(lines.map(\.number) == [5, 6], "\(lines.map(\.number))")
        #expect(lines.map { String(decoding: $0.bytes, as: UTF8.self) } == ["real", "\u{A0}x\u{A0}"])
    }

    /// A job that reads its file twice takes the calibration texts at the positions the whole input's sample has,
    /// for small and large label sets.
    @Test func samplePositionsAreThoseOfTheSample() {
        let labels = { (count: Int) in GenerationSchema(root: .object(.init(name: "R", properties: [
            .init(name: "label", description: nil, node: .enumeration(.init(name: "Label", choices: (0..<count).map { "l\($0)" }))),
        ]))) }
        for schema in [labels(3), labels(40), TaggingPreset.contentTagging.schema] {
            for count in [0, 1, 7, 24, 25, 48, 49, 1_000, 12_345] {
                let texts = (0..<count).map { "text \($0)" }
                let positions = TaggingConfiguration.samplePositions(count: count, for: schema)
                #expect(positions.map { texts[$0] } == TaggingConfiguration.sample(of: texts, for: schema), "\(count)")
            }
        }
    }
}

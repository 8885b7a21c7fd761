public import FoundationModels

/// Writes and reads the JSONL lines of `fm tag` output: `{"id","text",…,"result":{…}}` or
/// `{"id","text",…,"error":{"code","message"}}`.
public enum TaggingOutput {
    /// The output line (without newline) for a record and its outcome.
    public static func line(for record: TaggingRecord, outcome: Result<GeneratedContent, TaggingFailure>) -> String {
        var members: [(key: String, json: String)] = [("id", GeneratedContent(kind: .string(record.id)).compactJSONString)]
        if case .success(let text) = record.text {
            members.append(("text", GeneratedContent(kind: .string(text)).compactJSONString))
        }
        for (key, value) in record.extraFields where !members.contains(where: { $0.key == key }) {
            // Copied as the input wrote it where a parsed number would have changed, unless the field was given
            // another value since.
            if let text = record.extraFieldTexts[key], (try? GeneratedContent(json: text)) == value {
                members.append((key, text))
            } else {
                members.append((key, value.compactJSONString))
            }
        }
        switch outcome {
        case .success(let result):
            members.append(("result", result.compactJSONString))
        case .failure(let failure):
            members.append(("error", GeneratedContent(kind: .structure(
                properties: ["code": GeneratedContent(kind: .string(failure.code)), "message": GeneratedContent(kind: .string(failure.message))],
                orderedKeys: ["code", "message"])).compactJSONString))
        }
        return "{" + members.map { GeneratedContent(kind: .string($0.key)).compactJSONString + ":" + $0.json }.joined(separator: ",") + "}"
    }

    /// How many complete records in existing output carry each id, whether each of them (in order, per id) is an
    /// error line, the text each carries (`nil` for a line without one), and how many bytes of the output are whole
    /// lines (a run killed mid-write leaves a partial last line, which is cut off before appending).
    public static func finishedRecords(in output: [UInt8])
        -> (ids: [String: Int], failed: [String: [Bool]], texts: [String: [String?]], validLength: Int) {
        var failed: [String: [Bool]] = [:]
        var texts: [String: [String?]] = [:]
        var validLength = 0
        var start = 0
        for (index, byte) in output.enumerated() where byte == 0x0A {
            var line = output[start..<index]
            start = index + 1
            // A byte-order mark (an output an editor saved) is not part of the line's JSON, and a blank line an
            // editor left is no reason to cut off the finished lines after it. Blank lines after the last finished
            // line are cut with the rest, so the lines a resume appends follow a finished one.
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            guard let text = String(validating: line, as: UTF8.self),
                  let content = try? GeneratedContent(json: text), content.isComplete,
                  case .structure(let properties, _) = content.kind,
                  case .string(let id)? = properties["id"]?.kind,
                  properties["result"] != nil || properties["error"] != nil else { break }
            failed[id, default: []].append(properties["result"] == nil)
            if case .string(let written)? = properties["text"]?.kind { texts[id, default: []].append(written) } else {
                texts[id, default: []].append(nil)
            }
            validLength = index + 1
        }
        return (failed.mapValues(\.count), failed, texts, validLength)
    }

    /// The number (from 1) of the first line past the finished ones that is not the cut-off last line a killed job
    /// leaves: a line of something else (notes, another tool's output), which resuming would throw away together
    /// with every line after it. `nil` when what follows the finished lines is at most one line that begins as
    /// this tool's lines do (`{"id":`, or a part of that), cut off (an editor may have ended it with a newline since)
    /// and perhaps followed by NUL bytes, which a crash can leave at the end of a file. A whole object that begins
    /// so but carries neither `result` nor `error` was not cut off, and is named.
    public static func strayLine(in output: [UInt8], validLength: Int) -> Int? {
        let finished = min(validLength, output.count)
        var number = output[..<finished].count(where: { $0 == 0x0A }) + 1
        var rest = output[finished...]
        while let last = rest.last, [0x00, 0x0A, 0x0D, 0x20, 0x09].contains(last) { rest = rest.dropLast() }
        // Blank lines right after the finished ones go with the cut; the line after them is the one to judge.
        while let newline = rest.firstIndex(of: 0x0A), rest[..<newline].allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
            rest = rest[(newline + 1)...]
            number += 1
        }
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        rest = rest.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        guard !rest.isEmpty else { return nil }
        let opening = Array(#"{"id":"#.utf8)
        let begins = rest.starts(with: opening) || opening.starts(with: rest)
        guard begins, !rest.contains(0x0A) else { return number }
        // A whole JSON object without a result or an error is not cut off: it is another tool's line that happens
        // to begin with an id.
        if let text = String(validating: rest, as: UTF8.self), let content = try? GeneratedContent(json: text), content.isComplete,
           case .structure(let properties, _) = content.kind, properties["result"] == nil, properties["error"] == nil {
            return number
        }
        return nil
    }

    /// The first finished result that `schema` could not have written, with its line number (from 1) and why:
    /// a member the schema's structure lacks, or a required one it is missing. An output finished under other
    /// settings has lost its job record, and a resume of it (its input grew) would otherwise add answers of
    /// another shape. Only the shape of a structure's members is compared; `nil` for another root.
    public static func misfitResult(in output: [UInt8], validLength: Int, schema: GenerationSchema) -> (line: Int, reason: String)? {
        guard case .object(let object)? = schema.resolving(schema.root), object.additionalValues == nil else { return nil }
        let declared = Set(object.properties.map(\.name))
        let required = object.properties.filter { !$0.isOptional }.map(\.name)
        var number = 0
        for line in output[..<min(validLength, output.count)].split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            guard let text = String(validating: line.starts(with: [0xEF, 0xBB, 0xBF]) ? line.dropFirst(3) : line, as: UTF8.self),
                  let content = try? GeneratedContent(json: text), case .structure(let properties, _) = content.kind,
                  let result = properties["result"] else { continue }
            guard case .structure(let members, let keys) = result.kind else {
                return (number, "its result is not an object")
            }
            if let extra = keys.first(where: { !declared.contains($0) }) {
                return (number, "its result has \"\(extra)\", which the schema does not")
            }
            if let missing = required.first(where: { members[$0] == nil }) {
                return (number, "its result lacks \"\(missing)\", which the schema requires")
            }
        }
        return nil
    }

    /// Each record with the number of earlier records that share its id: a finished line accounts for the earliest
    /// record with its id, so the n-th finished line of an id (from 0) is the one of the record numbered n.
    private static func numbered(_ records: [TaggingRecord]) -> [(record: TaggingRecord, occurrence: Int)] {
        var seen: [String: Int] = [:]
        return records.map { record in
            defer { seen[record.id, default: 0] += 1 }
            return (record, seen[record.id, default: 0])
        }
    }

    /// The first record whose finished line carries another text than the record's, with that text: the output
    /// then holds another input's results, which resuming would keep in place of this input's. `nil` when every
    /// finished line that has a text has its record's.
    public static func foreignLine(_ records: [TaggingRecord], texts: [String: [String?]]) -> (record: TaggingRecord, written: String)? {
        for (record, occurrence) in numbered(records) {
            guard let lines = texts[record.id], occurrence < lines.count, let written = lines[occurrence],
                  case .success(let text) = record.text, text != written else { continue }
            return (record, written)
        }
        return nil
    }

    /// An id with more finished lines than `records` has records of it, with its count of lines: the output then
    /// holds lines of no record of this input (another input's, or of records since removed), which resuming would
    /// keep beside this input's results. `nil` when every finished line accounts for a record.
    public static func surplusLine(_ records: [TaggingRecord], finished: [String: Int]) -> (id: String, lines: Int)? {
        var counts: [String: Int] = [:]
        for record in records { counts[record.id, default: 0] += 1 }
        return finished.sorted { $0.key < $1.key }.first { id, lines in lines > counts[id, default: 0] }
            .map { (id: $0.key, lines: $0.value) }
    }

    /// How many of `records` already have an error line in the output, lines of another input's ids not counted.
    public static func keptFailures(_ records: [TaggingRecord], failed: [String: [Bool]]) -> Int {
        numbered(records).count(where: { record, occurrence in
            guard let lines = failed[record.id], occurrence < lines.count else { return false }
            return lines[occurrence]
        })
    }

    /// The first record still to do that comes before a finished one in the input (records added or moved ahead
    /// since the output was written): its line, appended, goes out of input order. `nil` when the finished lines
    /// are the input's first records, as a killed job leaves them.
    public static func lineOutOfOrder(_ records: [TaggingRecord], finished: [String: Int]) -> TaggingRecord? {
        var firstUnfinished: TaggingRecord?
        for (record, occurrence) in numbered(records) {
            if occurrence >= finished[record.id, default: 0] {
                if firstUnfinished == nil { firstUnfinished = record }
            } else if let firstUnfinished {
                return firstUnfinished
            }
        }
        return nil
    }

    /// The records still to do, in order, when output already holds `finished` lines of each id, so an input that
    /// repeats an id loses none of its records.
    public static func unfinished(_ records: [TaggingRecord], finished: [String: Int]) -> [TaggingRecord] {
        numbered(records).filter { record, occurrence in occurrence >= finished[record.id, default: 0] }.map(\.record)
    }
}

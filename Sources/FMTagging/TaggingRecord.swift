public import FoundationModels

/// One input to tag: an identifier, the text (or why the line could not be read), and any other fields of the
/// input line, which are copied to the output (a `date`, gold labels, …).
public struct TaggingRecord: Sendable {
    /// The record's identifier: the input's `id`, else its 1-based line number.
    public var id: String
    /// The text to tag, or the reason the input line is unusable.
    public var text: Result<String, TaggingFailure>
    /// The input line's other fields, in order.
    public var extraFields: [(key: String, value: GeneratedContent)]
    /// The JSON text the input line wrote for those of ``extraFields`` whose numbers a `GeneratedContent`
    /// (which holds numbers as `Double`) would change: 16 digits or more, such as a 64-bit post id (for a record of
    /// a `/v1/tag` JSON body, without white space between tokens). The output copies these as written, while the
    /// field still holds the value read from them, and `fm eval` names a long integer label by its text.
    package var extraFieldTexts: [String: String] = [:]

    /// Creates a record.
    public init(id: String, text: Result<String, TaggingFailure>, extraFields: [(key: String, value: GeneratedContent)] = []) {
        self.id = id
        self.text = text
        self.extraFields = extraFields
    }

    /// Parses one input line (without its newline). JSON objects (lines starting with `{`) are read as
    /// `{"id", "text", …}`; anything else is plain text.
    public static func parse(line bytes: some Collection<UInt8>, lineNumber: Int) -> TaggingRecord {
        let fallbackID = String(lineNumber)
        guard let line = String(validating: bytes, as: UTF8.self) else {
            // A JSON line keeps its id when it is written plainly and is whole UTF-8 itself, as a line the JSON
            // reader refuses does: the bad bytes are most likely in the text.
            let lossy = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
            let id = lossy.hasPrefix("{") ? Self.plainID(in: lossy).flatMap { $0.contains("\u{FFFD}") ? nil : $0 } : nil
            return TaggingRecord(id: id ?? fallbackID, text: .failure(.init(code: "invalid-utf8", message: "Line \(lineNumber) is not valid UTF-8.")))
        }
        let trimmed = line.trimmingWhitespace
        guard trimmed.hasPrefix("{") else {
            return TaggingRecord(id: fallbackID, text: trimmed.isEmpty
                ? .failure(.init(code: "empty-text", message: "Line \(lineNumber) has no text."))
                : .success(trimmed))
        }
        let parsed: GeneratedContent
        do {
            // An escaped lone surrogate is no character: read as U+FFFD, the record would be tagged (and its id or
            // fields copied) changed without a word. Of a member named twice the last counts, as in most readers.
            parsed = try GeneratedContent(jsonRefusingLoneSurrogates: trimmed)
        } catch {
            // What is wrong, and where: a number beyond a Double's range (`1e400`) is valid JSON that this reader
            // cannot hold, which "not a JSON object" would misstate. The record keeps its id when it has a plain one.
            let reason = if case DecodingError.dataCorrupted(let context) = error { " " + context.debugDescription } else { "" }
            return TaggingRecord(id: Self.plainID(in: trimmed) ?? fallbackID, text: .failure(.init(
                code: "malformed-json", message: "Line \(lineNumber) is not a JSON object fm can read:\(reason)")))
        }
        guard parsed.isComplete, case .structure(let properties, let keys) = parsed.kind else {
            // A line cut short (the last line of a file whose writer was stopped) keeps its id when that was
            // written whole, so its error line can be matched to the record.
            if case .structure(let partial, _) = parsed.kind {
                // A value is complete only once something follows it, so a number is never read half written.
                let whole = partial["id"]?.isComplete == true
                let id: String? = switch partial["id"]?.kind {
                case .string(let text)? where whole: text
                case .number(let value)? where whole && value.rounded() == value && abs(value) < 1e15: String(Int(value))
                // Past 2^53 as written, when the members up to the cut can be read.
                case .number? where whole: JSONLiteral.integer(ofKey: "id", in: trimmed).map(String.init)
                case .bool(let value)? where whole: String(value)
                default: nil
                }
                return TaggingRecord(id: id ?? fallbackID, text: .failure(.init(
                    code: "malformed-json", message: "Line \(lineNumber) is not a whole JSON object: it ends before the object closes.")))
            }
            return TaggingRecord(id: fallbackID, text: .failure(.init(code: "malformed-json", message: "Line \(lineNumber) is not a JSON object.")))
        }
        var id = fallbackID
        var invalidID = false
        switch properties["id"]?.kind {
        case .string(let value): id = value
        case .number(let value) where value.rounded() == value && abs(value) < 1e15: id = String(Int(value))
        case .number(let value): id = JSONLiteral.integer(ofKey: "id", in: trimmed).map(String.init) ?? String(value)
        // Written as a string, as numbers are: replaced by the line number, it would name another record.
        case .bool(let value): id = String(value)
        case .structure?, .array?: invalidID = true
        default: break
        }
        let extra = keys.filter { !["id", "text", "result", "error"].contains($0) }.compactMap { key in
            properties[key].map { (key: key, value: $0) }
        }
        var extraTexts: [String: String] = [:]
        if trimmed.utf8.hasDigitRun(of: Self.longestExactDigits + 1) {
            // Of repeated keys the last counts, as in `GeneratedContent`, so a later short value takes the text back;
            // a key written with escapes is matched by its text and so left to the parsed value.
            for member in JSONLiteral.members(in: trimmed) ?? [] {
                let key = String(member.key)
                guard extra.contains(where: { $0.key == key }) else { continue }
                extraTexts[key] = member.value.utf8.hasDigitRun(of: Self.longestExactDigits + 1) ? String(member.value) : nil
            }
        }
        let text: Result<String, TaggingFailure>
        switch properties["text"]?.kind {
        case _ where invalidID:
            // An error line, with the record's other fields as every error line has them.
            text = .failure(.init(code: "invalid-id", message: "Line \(lineNumber) has an \"id\" that is an object or a list; use a string or a number."))
        case .string(let value) where !value.trimmingWhitespace.isEmpty: text = .success(value)
        case .string: text = .failure(.init(code: "empty-text", message: "Record \(id) has an empty text."))
        default: text = .failure(.init(code: "missing-text", message: "Record \(id) has no \"text\" string."))
        }
        var record = TaggingRecord(id: id, text: text, extraFields: extra)
        record.extraFieldTexts = extraTexts
        return record
    }

    /// The `id` of a line the JSON reader refused, when it is written plainly: a string without escapes or an
    /// integer, so the error line still names the record.
    static func plainID(in json: String) -> String? {
        guard let value = JSONLiteral.members(in: json)?.last(where: { $0.key == "id" })?.value else { return nil }
        if value.count >= 2, value.first == "\"", value.last == "\"", !value.contains("\\") { return String(value.dropFirst().dropLast()) }
        return JSONLiteral.integer(ofKey: "id", in: json).map(String.init)
    }

    /// The most digits a `Double` always keeps: a number written with more may come back as another.
    package static let longestExactDigits = 15

    /// Splits input bytes into lines and parses each; a trailing `\r` and blank lines are dropped.
    public static func parse(input: [UInt8]) -> [TaggingRecord] {
        lines(in: input).map { parse(line: $0.bytes, lineNumber: $0.number) }
    }

    /// The non-blank lines of `input`, each without its newline and trailing `\r`, with its 1-based line number
    /// counted over every line, blank ones too: the numbers ``parse(input:)`` gives records without an `id`.
    public static func lines(in input: [UInt8]) -> [(number: Int, bytes: ArraySlice<UInt8>)] {
        var lines: [(number: Int, bytes: ArraySlice<UInt8>)] = []
        var lineNumber = 0
        for line in input.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            if let line = content(ofLine: line) { lines.append((lineNumber, line)) }
        }
        return lines
    }

    /// The part of one line of input (without its `\n`) that is a record: without a `\r` before the line feed
    /// or a byte-order mark, and `nil` for a line of whitespace only (spaces, tabs, and any other, such as a
    /// no-break or ideographic space), which is no record.
    static func content(ofLine line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var line = line
        if line.last == 0x0D { line = line.dropLast() }
        // A byte-order mark (files saved by some Windows editors) would hide the line's JSON; files joined
        // with `cat` keep each part's mark at the start of a later line.
        if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return nil }
        // Only a line of ASCII whitespace and non-ASCII bytes can be whitespace beyond spaces and tabs: the
        // common line, with a letter, costs no decoding.
        if line.allSatisfy({ (0x09...0x0D).contains($0) || $0 == 0x20 || $0 >= 0x80 }),
           let text = String(validating: line, as: UTF8.self), text.allSatisfy(\.isWhitespace) {
            return nil
        }
        return line
    }

    /// Splits input that arrives in pieces (a pipe, a file read a block at a time) into the numbered record lines
    /// ``lines(in:)`` finds in the whole of it, each as soon as its line feed has arrived.
    public struct LineSplitter: Sendable {
        private var pending: [UInt8] = []
        private var lineNumber = 0

        /// Creates a splitter at the start of the input.
        public init() {}

        /// The record lines that `bytes` completes, in order.
        public mutating func lines(completedBy bytes: some Collection<UInt8>) -> [(number: Int, bytes: ArraySlice<UInt8>)] {
            var lines: [(number: Int, bytes: ArraySlice<UInt8>)] = []
            var rest = Array(bytes)[...]
            while let newline = rest.firstIndex(of: 0x0A) {
                lineNumber += 1
                let whole = pending.isEmpty ? rest[..<newline] : ArraySlice(pending + rest[..<newline])
                if let line = TaggingRecord.content(ofLine: whole) { lines.append((lineNumber, line)) }
                pending.removeAll(keepingCapacity: true)
                rest = rest[(newline + 1)...]
            }
            pending.append(contentsOf: rest)
            return lines
        }

        /// The last line, when the input ends without a line feed after it.
        public mutating func finish() -> (number: Int, bytes: ArraySlice<UInt8>)? {
            defer { pending = [] }
            // `lines(in:)` counts the empty piece after a final line feed as a line of its own, which is no record.
            lineNumber += 1
            return TaggingRecord.content(ofLine: pending[...]).map { (lineNumber, ArraySlice($0)) }
        }
    }
}

extension Collection<UInt8> {
    /// Whether `count` ASCII digits follow each other somewhere in these bytes.
    package func hasDigitRun(of count: Int) -> Bool {
        var run = 0
        for byte in self {
            run = (0x30...0x39).contains(byte) ? run + 1 : 0
            if run >= count { return true }
        }
        return false
    }
}

extension String {
    var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}

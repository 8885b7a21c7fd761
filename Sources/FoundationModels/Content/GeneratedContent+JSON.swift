extension GeneratedContent {
    /// Creates content by parsing JSON text, which may be incomplete.
    ///
    /// The text may be any prefix of a JSON document, as produced while a response streams in. Incomplete parts
    /// are kept where they carry information (`{"title": "A story of` has `title == "A story of"`) and
    /// ``isComplete`` is `true` only when the text is a whole document.
    ///
    /// ```swift
    /// let partial = try GeneratedContent(json: #"{"title": "A story of"#)
    /// partial.isComplete  // false
    /// ```
    ///
    /// - Parameter json: JSON text, complete or truncated.
    /// - Throws: `DecodingError.dataCorrupted` if the text is not a prefix of any JSON document.
    public init(json: String) throws {
        self = try PartialJSONParser.parse(json)
    }

    /// Creates content from JSON text as ``init(json:)`` does, but throws `DecodingError.dataCorrupted` for an
    /// object that names a member twice, instead of keeping the last value, and for an escaped lone surrogate,
    /// instead of replacing it with U+FFFD.
    package init(strictJSON json: String) throws {
        self = try PartialJSONParser.parse(json, isStrict: true)
    }

    /// Creates content from JSON text as ``init(json:)`` does, keeping the last value of a member named twice, but
    /// throws `DecodingError.dataCorrupted` for an escaped lone surrogate, instead of replacing it with U+FFFD.
    package init(jsonRefusingLoneSurrogates json: String) throws {
        self = try PartialJSONParser.parse(json, refusesRepeatedMembers: false, refusesLoneSurrogates: true)
    }

    /// The content as JSON text, with structure keys in order and a space after each colon and comma, as
    /// Apple's framework writes it: `{"name": "Ada", "tags": ["math", "engines"]}`.
    ///
    /// Integral numbers are written without a fraction (`30`, not `30.0`).
    public var jsonString: String {
        JSONWriter.string(for: self, spaced: true)
    }

    /// The content as compact JSON text — the form the model writes and reads.
    package var compactJSONString: String {
        JSONWriter.string(for: self)
    }
}

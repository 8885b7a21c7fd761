import FMTagging
import HTTPTypes
import FoundationModels

/// A value inside a request body, with its path, so every type error names the field at fault
/// (`messages[2].content must be a string or an array of parts`).
struct JSONField: Sendable {
    /// The value.
    let value: GeneratedContent
    /// Where it is: `messages[2].content`.
    let path: String
    /// The whole body's JSON text, kept on the body itself: what a number past 2^53 was written as.
    var source: String?

    /// The body of a request: JSON text that must be an object.
    ///
    /// - Throws: ``APIError`` (400) when the text is not JSON, is cut off, or is not an object.
    static func body(_ text: String) throws(APIError) -> JSONField {
        let content: GeneratedContent
        // A member sent twice (`"stream":true,"stream":false`) would otherwise lose its first value without a word,
        // and an escaped lone surrogate would become U+FFFD, where the server refuses text it cannot hold.
        do { content = try GeneratedContent(strictJSON: text) } catch {
            // The parser says what and where: valid JSON this reader cannot hold (`1e400`, nesting past its limit)
            // is not the syntax error a bare "not valid JSON" would suggest.
            guard case DecodingError.dataCorrupted(let context) = error else {
                throw APIError(.badRequest, code: "invalid_json", "The request body is not valid JSON.")
            }
            let reason = context.debugDescription.hasSuffix(".") ? String(context.debugDescription.dropLast()) : context.debugDescription
            throw APIError(.badRequest, code: "invalid_json", "The request body cannot be read as JSON: \(reason).")
        }
        guard content.isComplete else { throw APIError(.badRequest, code: "invalid_json", "The request body is not complete JSON.") }
        let root = JSONField(value: content, path: "", source: text)
        guard root.isObject else { throw APIError(.badRequest, code: "invalid_json", "The request body must be a JSON object.") }
        return root
    }

    /// Whether the value is an object.
    var isObject: Bool { if case .structure = value.kind { true } else { false } }

    /// Whether the value is `null`.
    var isNull: Bool { if case .null = value.kind { true } else { false } }

    /// The names of the object's members that are not `null`, in the order written; empty for anything else.
    var keys: [String] {
        guard case .structure(let properties, let order) = value.kind else { return [] }
        return order.filter { key in properties[key].map { if case .null = $0.kind { false } else { true } } ?? false }
    }

    /// The member `key`, or `nil` when it is missing or `null`.
    subscript(key: String) -> JSONField? {
        guard case .structure(let properties, _) = value.kind, let member = properties[key] else { return nil }
        if case .null = member.kind { return nil }
        return JSONField(value: member, path: path.isEmpty ? key : "\(path).\(key)")
    }

    /// Refuses a member that OpenAI does not define here by name, as unknown top-level fields are: a misspelt
    /// one (`paramters`, `strcit`) would otherwise be dropped without a word. `place` names the object for the
    /// message ("a tool definition").
    func checkMembers(allowed: Set<String>, in place: String) throws(APIError) {
        if let stray = keys.first(where: { !allowed.contains($0) }) {
            throw APIError.invalid("\(path).\(stray)", "Unknown member '\(stray)'; \(place) takes \(allowed.sorted().joined(separator: ", ")).")
        }
    }

    /// The member `key`, which must be present.
    func required(_ key: String) throws(APIError) -> JSONField {
        guard let member = self[key] else {
            throw APIError.invalid(path.isEmpty ? key : "\(path).\(key)", "'\(path.isEmpty ? key : "\(path).\(key)")' is required.")
        }
        return member
    }

    /// The value as a string.
    func string() throws(APIError) -> String {
        guard case .string(let text) = value.kind else { throw mismatch("a string") }
        return text
    }

    /// The value as a number.
    func number() throws(APIError) -> Double {
        guard case .number(let number) = value.kind else { throw mismatch("a number") }
        return number
    }

    /// The value as a whole number.
    func integer() throws(APIError) -> Int {
        let number = try number()
        guard number.rounded() == number, abs(number) < 1e15 else { throw mismatch("an integer") }
        return Int(number)
    }

    /// The value as a sampling seed: any whole number of 64 bits, as OpenAI takes it (clients draw seeds from the
    /// whole range); `nil` for -1, which asks for a fresh random seed, as for llama-server and as leaving it out does.
    ///
    /// - Parameter written: The number as the body wrote it, when it is written as an integer (`-?[0-9]+`): read
    ///   exactly, since past 2^53 a `Double` would give neighbouring seeds one value and read 2^64 as a seed.
    func seed(written: Substring? = nil) throws(APIError) -> Int? {
        let number = try number()
        // Read from the number, not the bits: 2^64 − 1 has the bits of -1, and is a seed.
        if number == -1 { return nil }
        if let written {
            if let signed = Int64(written) { return Int(signed) }
            // Unsigned seeds above Int.max keep their bits.
            if let unsigned = UInt64(written) { return Int(bitPattern: UInt(unsigned)) }
            throw APIError.invalid(path, "'\(path)' must be an integer of 64 bits; \(written) is outside that range.")
        }
        // Written otherwise (`5.0`, `1e3`), a seed is read as its `Double`, which past 2^53 is the nearest one.
        guard number.rounded() == number, number >= -0x1p63, number < 0x1p64 else { throw mismatch("an integer of 64 bits") }
        if number < 0x1p63 { return Int(number) }
        return Int(bitPattern: UInt(number))
    }

    /// The value as a Boolean.
    func bool() throws(APIError) -> Bool {
        guard case .bool(let flag) = value.kind else { throw mismatch("a Boolean") }
        return flag
    }

    /// The value's elements.
    func array() throws(APIError) -> [JSONField] {
        guard case .array(let elements) = value.kind else { throw mismatch("an array") }
        return elements.enumerated().map { JSONField(value: $1, path: "\(path)[\($0)]") }
    }

    /// The value, which must be an object.
    func object() throws(APIError) -> JSONField {
        guard isObject else { throw mismatch("an object") }
        return self
    }

    /// A 400 saying what the value should have been.
    func mismatch(_ expected: String) -> APIError {
        APIError.invalid(path, "'\(path)' must be \(expected), not \(value.kind.typeName).")
    }

    /// The value as a JSON Schema, imported; a keyword that cannot be enforced is a 400 naming it.
    func importedSchema() throws(APIError) -> GenerationSchema {
        _ = try object()
        do {
            let imported = try GenerationSchema.importing(jsonSchema: value)
            // A server has no channel for the importer's warnings, and a misspelt keyword would drop its constraint.
            if let (written, meant) = imported.likelyMisspellings.first {
                throw APIError.invalid(path, "Unknown JSON Schema keyword '\(written)'; did you mean '\(meant)'? "
                    + "It would be ignored, and what it constrains left free.", code: "unsupported_schema")
            }
            if let (written, meant) = imported.likelyMisspelledFormats.first {
                throw APIError.invalid(path, "Unknown format '\(written)'; did you mean '\(meant)'? "
                    + "It would not be enforced, and its strings left free.", code: "unsupported_schema")
            }
            return imported.schema
        } catch let error as APIError {
            throw error
        } catch {
            // Some import errors (a schema past the size limit) already say so.
            let reason = "\(error)"
            let message = reason.hasPrefix("The schema cannot be enforced") ? reason : "The schema cannot be enforced: \(reason)"
            throw APIError.invalid(path, message, code: "unsupported_schema")
        }
    }
}

public import FMCache
import FMEngine
import Foundation
package import FoundationModels

/// What the answers of a classification's small choice fields mean, in the model's own words.
///
/// A label set is often a dataset's shorthand: `ham` is a message that is not spam, `neither` a text that is
/// neither hateful nor offensive. Read bare, the model takes such a name in its everyday sense. So before a job,
/// the model is shown a sample of the job's own texts and a field's choices, and writes one sentence per choice;
/// the glossary then goes with the instructions of every request (and of every calibration text, so the prior
/// divided out is read under the same words). The sample matters: shown eight of the job's texts, `medium`
/// describes spam as promotional messages that ask for action; without them, as malware.
package enum LabelGlossary {
    /// A field whose answer is one of a few fixed strings.
    package struct ChoiceField: Sendable, Hashable {
        /// The property's name; nested properties are joined with dots.
        package var name: String
        /// The strings the field may hold.
        package var choices: [String]
    }

    /// Fields with more choices than this get no glossary: a sentence per label of a 77-label set would cost a
    /// minute of generation and a long system text, and large sets are already shortlisted by their names.
    package static let maximumChoices = 16
    /// How many of the job's texts the model reads before describing the labels.
    package static let sampleSize = 8
    /// Longest part of a sample text shown, in characters.
    package static let sampleLength = 200
    /// Longest meaning, in characters.
    package static let meaningLength = 200

    /// The string-choice fields of `schema` with 2 to ``maximumChoices`` choices, in property order. Bool
    /// fields are left out: `true` and `false` are described by the field itself.
    ///
    /// - Parameter sortingChoices: List each field's choices in one canonical (sorted) order, as the rubric does,
    ///   so the glossary the model writes, and with it every answer, does not depend on the order the schema
    ///   declares its cases in.
    package static func choiceFields(in schema: GenerationSchema, sortingChoices: Bool = false) -> [ChoiceField] {
        var fields: [ChoiceField] = []
        // The choices of a field, of a list of them or a list of lists; `followed` stops a list type whose items
        // are that list type again.
        func choices(of node: GenerationSchema.Node, followed: Set<String> = []) -> [String]? {
            var followed = followed
            if case .reference(let name) = node, !followed.insert(name).inserted { return nil }
            switch schema.resolving(node) {
            case .enumeration(let enumeration): return enumeration.choices
            case .string(let guides): return guides.choices
            case .array(let array): return choices(of: array.items, followed: followed)
            default: return nil
            }
        }
        // Every path to a choice field is named (a `sender` and a `recipient` of one type each have a `role`), but a
        // type is not walked again inside itself, and at most `repeatBudget` walks are of a type walked before:
        // types that each name the next twice would otherwise be walked once per path, which doubles with every
        // level. A type's first walk is never refused, so every choice field has at least one path.
        // (Choice types are resolved anew for every field, so each field of one enum type gets its glossary.)
        var repeatBudget = 64
        var walked: Set<String> = []
        func walk(_ node: GenerationSchema.Node, path: String, ancestors: Set<String>) {
            var ancestors = ancestors
            if case .reference(let name) = node, !ancestors.insert(name).inserted { return }
            guard case .object(let object) = schema.resolving(node) else { return }
            if !walked.insert(object.name).inserted {
                guard repeatBudget > 0 else { return }
                repeatBudget -= 1
            }
            ancestors.insert(object.name)
            for property in object.properties {
                let name = path.isEmpty ? property.name : path + "." + property.name
                if let values = choices(of: property.node) {
                    if (2...maximumChoices).contains(values.count) {
                        fields.append(ChoiceField(name: name, choices: sortingChoices ? values.sorted() : values))
                    }
                } else {
                    walk(property.node, path: name, ancestors: ancestors)
                }
            }
        }
        walk(schema.root, path: "", ancestors: [])
        return fields
    }

    /// Up to ``sampleSize`` of `texts`, evenly spread, each on one line and cut to ``sampleLength`` characters.
    package static func sample(of texts: [String]) -> [String] {
        CalibrationSample.spread(of: texts, count: sampleSize).map { text in
            let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
            return line.count <= sampleLength ? line : String(line.prefix(sampleLength)) + "…"
        }
    }

    /// The request that has the model describe `field`'s choices after reading `texts`: one line per choice,
    /// the choice, a colon and a sentence (only `choice`'s line when one is given: asked for every line at once,
    /// the model sometimes stops after the first). Free text, because asked for JSON the model copies sample
    /// texts into the values instead of describing them.
    package static func prompt(for field: ChoiceField, texts: [String], choice: String? = nil) -> String {
        let choices = field.choices.map { "\"\($0)\"" }.joined(separator: ", ")
        let request = choice.map { "Write one line: \"\($0)\", a colon, " } ?? "For each category, write one line: the category, a colon, "
        return "A text classifier sorts texts like these:\n"
            + sample(of: texts).map { "- " + $0 }.joined(separator: "\n")
            + "\n\ninto these categories: \(choices). " + request + "and one sentence describing the texts that belong to it."
    }

    /// Whether `meaning` copies one of `texts` (any 24 characters in a row) instead of describing a kind of text.
    package static func copies(_ meaning: String, from texts: [String]) -> Bool {
        let characters = Array(meaning.lowercased())
        let window = 24
        guard characters.count >= window else { return false }
        let sources = texts.map { $0.lowercased() }
        for start in 0...(characters.count - window) {
            let piece = String(characters[start..<(start + window)])
            if sources.contains(where: { $0.contains(piece) }) { return true }
        }
        return false
    }

    /// The glossary text given with the instructions, from each field's choices and their meanings. Fields with
    /// the same choices described alike (one enum type named by several fields) share one section.
    package static func render(_ entries: [(field: ChoiceField, meanings: [String: String])]) -> String? {
        var groups: [(names: [String], field: ChoiceField, meanings: [String: String])] = []
        for entry in entries {
            if let index = groups.firstIndex(where: { $0.field.choices == entry.field.choices && $0.meanings == entry.meanings }) {
                groups[index].names.append(entry.field.name)
            } else {
                groups.append(([entry.field.name], entry.field, entry.meanings))
            }
        }
        let sections = groups.compactMap { group -> String? in
            let lines = group.field.choices.compactMap { choice in
                group.meanings[choice].map { "- \"\(choice)\": " + $0 }
            }
            guard !lines.isEmpty else { return nil }
            return "What the answers of \(listed(group.names)) mean:\n" + lines.joined(separator: "\n")
        }
        return sections.isEmpty ? nil : sections.joined(separator: "\n\n")
    }

    /// Quoted names in a sentence: `"a"`, `"a" and "b"`, `"a", "b" and "c"`.
    static func listed(_ names: [String]) -> String {
        let quoted = names.map { "\"\($0)\"" }
        guard let last = quoted.last, quoted.count > 1 else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + " and " + last
    }

    /// Each choice's meaning in the model's reply: the sentences (``leadingSentences(of:)``) after the choice's
    /// name and a colon, at the start of a line. The name may be quoted, bulleted, capitalised, or written with
    /// spaces for underscores. Choices the reply does not describe are missing.
    package static func meanings(in reply: String, for field: ChoiceField) -> [String: String] {
        func normalised(_ text: some StringProtocol) -> String {
            String(text.lowercased().map { $0 == "_" || $0 == "-" ? " " : $0 })
                .trimmingCharacters(in: CharacterSet(charactersIn: " \"'`*"))
        }
        let names = Dictionary(field.choices.map { (normalised($0), $0) }, uniquingKeysWith: { first, _ in first })
        var meanings: [String: String] = [:]
        for line in reply.split(whereSeparator: \.isNewline) {
            var text = Substring(line).drop { $0 == " " || $0 == "-" || $0 == "*" || $0 == "•" }
            guard let colon = text.firstIndex(of: ":"), let choice = names[normalised(text[..<colon])],
                  meanings[choice] == nil else { continue }
            text = text[text.index(after: colon)...]
            let meaning = leadingSentences(of: text.split(whereSeparator: \.isWhitespace).joined(separator: " "))
            if !meaning.isEmpty { meanings[choice] = meaning }
        }
        return meanings
    }

    /// The text's whole sentences that fit in ``meaningLength`` characters (the first sentence, cut, when even
    /// that is longer).
    package static func leadingSentences(of text: String) -> String {
        var end = text.startIndex
        var index = text.startIndex
        var read = 0
        while index < text.endIndex, read < meaningLength {
            let next = text.index(after: index)
            if ".!?".contains(text[index]), next == text.endIndex || text[next] == " " { end = next }
            index = next
            read += 1
        }
        if end == text.startIndex {
            return text.count <= meaningLength ? text : String(text.prefix(meaningLength)) + "…"
        }
        return String(text[..<end])
    }

    /// The result-cache key of a reply: the model file, the request, and the safety checks when they are not the
    /// built-in ones, so a reply written without checks is never served to a job that has them.
    package static func replyKey(prompt: String, model identity: String, guardrails: SystemLanguageModel.Guardrails) -> String {
        ResultCache.key(["label-glossary", identity, prompt] + (TaggingConfiguration.guardrailsKey(guardrails).map { [$0] } ?? []))
    }

    /// Has `model` describe each of `field`'s choices after reading `texts`: all in one request, then one request
    /// for each choice the first reply missed or described by copying a text, until one of those fails too. Each
    /// reply is looked up in and stored to `cache`, keyed by the model file and the request, so a rerun of the
    /// same job does not pay again.
    /// The field gets no glossary unless every choice got a usable description, and none when two choices got
    /// the same description (``tellsApart(_:)``).
    package static func describe(_ field: ChoiceField, texts: [String], model: SystemLanguageModel, cache: ResultCache?) async -> [String: String] {
        let identity = ModelIdentity.of(model.modelURL)
        let shown = sample(of: texts)
        // The job's own guardrails: a job that turned them off classifies texts the default checks would block.
        let describer = SystemLanguageModel(modelURL: model.modelURL, useCase: .general, guardrails: model.guardrails)
        func reply(to prompt: String, tokens: Int) async -> String? {
            let key = replyKey(prompt: prompt, model: identity, guardrails: model.guardrails)
            if let stored = try? await cache?.value(forKey: key) { return stored }
            let session = LanguageModelSession(model: describer)
            let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: tokens)
            // The default levers: a job's ablation switches are about its own requests, not about this one.
            guard let text = try? await QualityLevers.$current.withValue(QualityLevers(), operation: {
                try await session.respond(to: prompt, options: options).content
            }) else { return nil }
            try? await cache?.store(text, forKey: key)
            return text
        }
        func usable(_ found: [String: String]) -> [String: String] { found.filter { !copies($0.value, from: shown) } }
        var meanings = usable(await reply(to: prompt(for: field, texts: texts), tokens: 20 + 80 * field.choices.count)
            .map { Self.meanings(in: $0, for: field) } ?? [:])
        for choice in field.choices where meanings[choice] == nil {
            let found = await reply(to: prompt(for: field, texts: texts, choice: choice), tokens: 80)
            // One choice left undescribed leaves the field without a glossary, so the rest need not be asked.
            guard let meaning = usable(found.map { Self.meanings(in: $0, for: field) } ?? [:])[choice] else { return [:] }
            meanings[choice] = meaning
        }
        return glossary(of: field, from: meanings)
    }

    /// The meanings a field's glossary gives: those found when they describe every choice and tell them apart
    /// (``tellsApart(_:)``), else none. Described alone, some choices pull every answer towards them: `medium`
    /// once described only "4" of five star ratings, and every one-star review came out as "5".
    package static func glossary(of field: ChoiceField, from meanings: [String: String]) -> [String: String] {
        guard field.choices.allSatisfy({ meanings[$0] != nil }), tellsApart(meanings) else { return [:] }
        return meanings
    }

    /// Whether no two choices got the same meaning. A glossary that gives two answers one sentence (`medium` once
    /// described an email's `important` and `urgent` priorities word for word alike) cannot help the model choose
    /// between them and says they are the same, so the field gets none.
    package static func tellsApart(_ meanings: [String: String]) -> Bool {
        let sentences = meanings.values.map { $0.lowercased().filter { $0.isLetter || $0.isNumber } }
        return Set(sentences).count == sentences.count
    }
}

extension TaggingConfiguration {
    /// This configuration with ``labelGlossary`` written by its model for its schema's small choice fields, from
    /// a sample of ``calibrationTexts``.
    ///
    /// Unchanged when the configuration generates remotely, has fewer than eight calibration texts (the glossary
    /// describes the labels as they apply to the job's texts), has no field of 2 to 16 string choices, or when
    /// `FM_DISABLE=label-glossary` is set. A field gets none unless every one of its choices can be described.
    ///
    /// - Parameters:
    ///   - cache: Where generated glossaries are kept between runs; `nil` generates them every time.
    ///   - status: Told which field is being described, before each field's requests (a few seconds each).
    public func describingLabels(cache: ResultCache? = nil, status: (@Sendable (String) -> Void)? = nil) async -> TaggingConfiguration {
        guard writesLabelGlossary, calibrationTexts.count >= CalibrationSample.minimumCount else { return self }
        let fields = LabelGlossary.choiceFields(in: schema, sortingChoices: levers.sortsChoices)
        var entries: [(field: LabelGlossary.ChoiceField, meanings: [String: String])] = []
        // Fields with one set of choices (one enum type at several paths) make one request, as the request names
        // only the choices.
        var described: [[String]: [String: String]] = [:]
        for field in fields {
            if let meanings = described[field.choices] {
                entries.append((field, meanings))
                continue
            }
            status?("writing the label glossary: \"\(field.name)\" (\(field.choices.count) values)")
            let meanings = await LabelGlossary.describe(field, texts: calibrationTexts, model: model, cache: cache)
            described[field.choices] = meanings
            entries.append((field, meanings))
        }
        var configuration = self
        configuration.labelGlossary = LabelGlossary.render(entries)
        return configuration
    }
}

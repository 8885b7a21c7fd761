extension Array where Element == Transcript.Segment {
    /// The plain text given to the model: every segment's text, joined with newlines.
    package var modelText: String {
        map(\.modelText).joined(separator: "\n")
    }

    /// The segments as a transcript entry holds them: runs of text and structures joined into one text
    /// segment (as the model reads them), other segments as they are.
    var joiningTextRuns: [Transcript.Segment] {
        var result: [Transcript.Segment] = []
        var run: [String] = []
        func flush() {
            if !run.isEmpty { result.append(.text(.init(content: run.joined(separator: "\n")))) }
            run.removeAll()
        }
        for segment in self {
            switch segment {
            case .text(let text): run.append(text.content)
            case .structure(let structure): run.append(structure.content.compactJSONString)
            default:
                flush()
                result.append(segment)
            }
        }
        flush()
        return result
    }
}

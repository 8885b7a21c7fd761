/// Byte strings that end a plain-text response where one first appears, the string itself left out (the
/// `stop` of OpenAI's chat completions).
///
/// The response grows a token at a time, so a stop string can begin in one token and end in a later one:
/// ``firstMatch(in:searchingFrom:)`` finds one that ends in the newest bytes, and ``heldBack(in:)`` tells how
/// many trailing bytes must not be shown yet because they could be the start of one.
package struct StopSequences: Sendable, Equatable {
    /// The non-empty stop strings, as UTF-8.
    package let sequences: [[UInt8]]
    /// The longest one's length.
    private let longest: Int

    /// The stop strings given, the empty ones left out.
    package init(_ strings: [String]) {
        sequences = strings.filter { !$0.isEmpty }.map { Array($0.utf8) }
        longest = sequences.map(\.count).max() ?? 0
    }

    /// Whether there is nothing to stop at.
    package var isEmpty: Bool { sequences.isEmpty }

    /// Where the earliest stop string in `bytes` begins, among those that end at or after `start`; `nil` when
    /// there is none. The bytes before `start` were searched before, when they were the newest.
    package func firstMatch(in bytes: [UInt8], searchingFrom start: Int) -> Int? {
        guard longest > 0 else { return nil }
        var position = max(0, start - longest + 1)
        while position < bytes.count {
            for sequence in sequences where position + sequence.count <= bytes.count && position + sequence.count > start {
                if bytes[position..<(position + sequence.count)].elementsEqual(sequence) { return position }
            }
            position += 1
        }
        return nil
    }

    /// How many of the last bytes of `bytes` could be the beginning of a stop string, and so wait until the
    /// next bytes tell whether they are: the length of the longest suffix that is a proper prefix of one.
    package func heldBack(in bytes: [UInt8]) -> Int {
        var length = min(bytes.count, longest - 1)
        while length > 0 {
            let suffix = bytes[(bytes.count - length)...]
            if sequences.contains(where: { $0.count > length && $0[..<length].elementsEqual(suffix) }) { return length }
            length -= 1
        }
        return 0
    }
}

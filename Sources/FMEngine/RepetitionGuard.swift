import FMDecoding

/// Stops a response from repeating the same array element or object value over and over, the runaway a
/// grammar allows wherever a schema leaves an array or a map unbounded.
///
/// A small model that has written two identical points (`{"latitude":0,"longitude":0}`) in a row tends to
/// write the same point until the context window is full. The guard follows the JSON being written: once
/// the member just completed equals the one before it, it masks every token that would write the `,` that
/// starts a third member, so the container closes. Only objects, arrays and strings count as members that
/// repeat: `[0,0,0]` is ordinary data. When the grammar allows nothing but the separator (`minItems`, a
/// required property next), the mask is left alone.
struct RepetitionGuard {
    private struct Frame {
        /// The member being written: its bytes outside strings without whitespace, inside strings as is.
        var member: [UInt8] = []
        /// The member before it, if that was an object, array or string.
        var previous: [UInt8]?
        /// Inside an object, members are values: the key and colon are not recorded.
        let isObject: Bool
        /// Whether the bytes now being read belong to a value (after `:` in an object; always in an array).
        var inValue: Bool
    }

    private var frames: [Frame] = []
    private var lexical = JSONLexicalState()

    /// Follows one appended token's bytes.
    mutating func observe(_ bytes: [UInt8]) {
        for byte in bytes { _ = consume(byte) }
    }

    /// Removes from `mask` the tokens that would start a third identical member, unless that empties it.
    ///
    /// - Parameter separatorTokens: Every token whose text contains a `,`: the only ones that can start a
    ///   new member.
    func apply(to mask: inout TokenMask, tokenBytes: [[UInt8]], separatorTokens: [Int32]) {
        guard isArmed else { return }
        var banned: [Int] = []
        for token in separatorTokens where mask.contains(Int(token)) {
            var trial = self
            if tokenBytes[Int(token)].contains(where: { trial.consume($0) }) { banned.append(Int(token)) }
        }
        guard !banned.isEmpty else { return }
        for token in banned { mask.remove(token) }
        if mask.isEmpty { for token in banned { mask.insert(token) } }
    }

    /// Whether the member being written could still turn out to equal the one before it: only then can a
    /// separator be banned, so the per-token check runs only while a repeat is in progress.
    private var isArmed: Bool {
        frames.contains { frame in frame.inValue && frame.previous.map { $0.starts(with: frame.member) } ?? false }
    }

    /// Reads one byte; returns whether it is a separator that would start a third identical member.
    private mutating func consume(_ byte: UInt8) -> Bool {
        switch lexical.consume(byte) {
        case .openingQuote, .content, .closingQuote:
            record(byte)
            return false
        case .structure:
            break
        }
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
            return false
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            record(byte)
            frames.append(Frame(isObject: byte == UInt8(ascii: "{"), inValue: byte == UInt8(ascii: "[")))
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            _ = frames.popLast()
            record(byte)
        case UInt8(ascii: ":"):
            guard !frames.isEmpty else { return false }
            frames[frames.count - 1].inValue = true
        case UInt8(ascii: ","):
            guard var frame = frames.popLast() else { return false }
            let repeats = frame.previous == frame.member
            let isComposite = frame.member.first.map { [UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\"")].contains($0) } ?? false
            frame.previous = isComposite ? frame.member : nil
            frame.member.removeAll(keepingCapacity: true)
            frame.inValue = !frame.isObject
            frames.append(frame)
            return repeats && isComposite
        default:
            record(byte)
        }
        return false
    }

    /// Adds a byte to the member of the innermost container whose value it belongs to, and to every enclosing
    /// member, since an element's text includes everything nested in it.
    private mutating func record(_ byte: UInt8) {
        for index in frames.indices where frames[index].inValue {
            frames[index].member.append(byte)
        }
    }
}

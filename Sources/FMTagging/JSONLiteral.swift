/// Reads a top-level member's number as the input wrote it. `GeneratedContent` holds numbers as `Double`, which
/// rounds integers past 2^53: an id such as 1234567890123456789 (a database key, a post id) would come back as
/// another number.
package enum JSONLiteral {
    /// The text of the top-level member `key`'s value in the JSON object `json` when that value is an integer
    /// (`-?[0-9]+`); `nil` for another value, a missing key or text that is not an object. Of repeated keys the
    /// last counts, as in `GeneratedContent`.
    package static func integer(ofKey key: String, in json: String) -> Substring? {
        guard let value = members(in: json)?.last(where: { $0.key == key })?.value else { return nil }
        let digits = value.first == "-" ? value.dropFirst() : value
        return !digits.isEmpty && digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) ? value : nil
    }

    /// The top-level members of the JSON object `json` as written: each key's text between its quotes (escapes
    /// unread) and its value's text, in order, repeated keys included. `nil` when `json` does not start as an
    /// object or a member's key is not followed by a colon and a value; members before text that ends the scan
    /// early (a missing comma, a cut-off object) are still returned.
    package static func members(in json: String) -> [(key: Substring, value: Substring)]? {
        let bytes = json.utf8
        var index = bytes.startIndex
        func skipSpace() {
            while index < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index = bytes.index(after: index) }
        }
        /// Moves past a string whose opening quote is at `index`; returns its raw contents (escapes unread).
        func skipString() -> Substring? {
            index = bytes.index(after: index)
            let start = index
            while index < bytes.endIndex {
                switch bytes[index] {
                case 0x5C: // backslash: the next byte is escaped
                    index = bytes.index(after: index)
                    if index < bytes.endIndex { index = bytes.index(after: index) }
                case 0x22:
                    let contents = json[start..<index]
                    index = bytes.index(after: index)
                    return contents
                default: index = bytes.index(after: index)
                }
            }
            return nil
        }
        /// Moves past one value of any kind.
        func skipValue() -> Bool {
            guard index < bytes.endIndex else { return false }
            switch bytes[index] {
            case 0x22: return skipString() != nil
            case 0x7B, 0x5B:
                var depth = 0
                while index < bytes.endIndex {
                    switch bytes[index] {
                    case 0x22: if skipString() == nil { return false }; continue
                    case 0x7B, 0x5B: depth += 1
                    case 0x7D, 0x5D: depth -= 1
                    default: break
                    }
                    index = bytes.index(after: index)
                    if depth == 0 { return true }
                }
                return false
            default:
                while index < bytes.endIndex, ![0x2C, 0x7D, 0x5D, 0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
                    index = bytes.index(after: index)
                }
                return true
            }
        }
        skipSpace()
        guard index < bytes.endIndex, bytes[index] == 0x7B else { return nil }
        index = bytes.index(after: index)
        var members: [(key: Substring, value: Substring)] = []
        while true {
            skipSpace()
            guard index < bytes.endIndex, bytes[index] == 0x22, let name = skipString() else { return members }
            skipSpace()
            guard index < bytes.endIndex, bytes[index] == 0x3A else { return nil }
            index = bytes.index(after: index)
            skipSpace()
            let start = index
            guard skipValue() else { return nil }
            members.append((name, json[start..<index]))
            skipSpace()
            guard index < bytes.endIndex, bytes[index] == 0x2C else { return members }
            index = bytes.index(after: index)
        }
    }
}

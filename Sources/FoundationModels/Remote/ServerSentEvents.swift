/// One event of a `text/event-stream` response.
struct ServerSentEvent: Sendable, Equatable {
    /// The `event:` field; `nil` for the default `message` type.
    var type: String?
    /// The `data:` lines, joined with newlines.
    var data: String
    /// The `id:` field, if the event set one.
    var id: String?
}

/// Splits a `text/event-stream` body into events, as bytes arrive (the WHATWG "server-sent events" rules).
///
/// Lines end in LF, CR LF or CR, and a chunk may end between the CR and the LF of one line break, so the parser
/// keeps what it has not finished between calls. One UTF-8 byte order mark at the very start of the stream is
/// skipped. Comment lines (`:` first) are skipped; an event is dispatched at a blank line when it has data.
struct ServerSentEventParser: Sendable {
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    /// How many bytes of a leading byte order mark have been read; `nil` once past the start of the stream.
    private var byteOrderMarkRead: Int? = 0
    private var line: [UInt8] = []
    private var previousWasCarriageReturn = false
    private var data: [String] = []
    private var type: String?
    private var id: String?
    /// Whether a line was not UTF-8 (it is read with U+FFFD in place of its bytes, as the standard says).
    private(set) var sawInvalidUTF8 = false

    /// Feeds the next bytes of the body; returns the events they complete.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if let read = byteOrderMarkRead {
                if byte == Self.byteOrderMark[read] {
                    byteOrderMarkRead = read + 1 < Self.byteOrderMark.count ? read + 1 : nil
                    continue
                }
                // Not a byte order mark after all: the bytes taken for one are the line's.
                line.append(contentsOf: Self.byteOrderMark[..<read])
                byteOrderMarkRead = nil
            }
            switch byte {
            case UInt8(ascii: "\n"):
                // The LF of a CR LF pair: the CR already ended the line.
                if previousWasCarriageReturn {
                    previousWasCarriageReturn = false
                    continue
                }
                endLine(into: &events)
            case UInt8(ascii: "\r"):
                endLine(into: &events)
                previousWasCarriageReturn = true
                continue
            default:
                line.append(byte)
            }
            previousWasCarriageReturn = false
        }
        return events
    }

    /// Ends the body: an unterminated last line counts, but an event without its blank line is dropped, as the
    /// standard says.
    mutating func finish() -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        if !line.isEmpty { endLine(into: &events) }
        return events
    }

    private mutating func endLine(into events: inout [ServerSentEvent]) {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            if !data.isEmpty { events.append(ServerSentEvent(type: type, data: data.joined(separator: "\n"), id: id)) }
            data.removeAll()
            type = nil
            return
        }
        if line.first == UInt8(ascii: ":") { return }
        if String(validating: line, as: UTF8.self) == nil { sawInvalidUTF8 = true }
        let text = String(decoding: line, as: UTF8.self)
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = text[...]
            value = ""
        }
        switch field {
        case "data": data.append(String(value))
        case "event": type = String(value)
        case "id": id = String(value)
        default: break  // `retry` and unknown fields: the client does not reconnect.
        }
    }
}

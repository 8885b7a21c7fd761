extension String {
    /// Decodes a NUL-terminated C buffer as UTF-8 (invalid bytes become U+FFFD).
    init(cChars buffer: [CChar]) {
        let end = buffer.firstIndex(of: 0) ?? buffer.count
        self = String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

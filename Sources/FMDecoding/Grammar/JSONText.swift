/// JSON text exactly as the grammars spell it, for code that must match the decoder's output byte for byte.
public enum JSONText {
    /// The canonical JSON string literal of `string`, quotes included: the escapes the grammar writes
    /// (`\"`, `\\`, `\n`, `\u001f`, …) and every other scalar as UTF-8.
    public static func quoted(_ string: String) -> [UInt8] {
        ByteNFA.jsonQuoted(string)
    }
}

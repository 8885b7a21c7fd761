/// Doubles as decimal text without an exponent, as the number grammar writes and reads them.
package enum DecimalText {
    /// Finite `value` with the digits of its shortest round-trip form, the point moved instead of an exponent
    /// written, and no trailing fraction zeros: `0.00005` (not `5e-05`), `100000000000000000000` (not `1e+20`),
    /// `1.5`, `3`.
    package static func plain(_ value: Double) -> String {
        let text = String(describing: value)
        var mantissa = Substring(text)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<e]
            exponent = Int(text[text.index(after: e)...].filter { $0 != "+" }) ?? 0
        }
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa = mantissa.dropFirst() }
        let digits = mantissa.filter { $0 != "." }
        // The decimal point sits after `point` of `digits`.
        let point = (mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count) + exponent
        var whole: Substring, fraction: Substring
        if point <= 0 {
            (whole, fraction) = ("0", Substring(String(repeating: "0", count: -point) + digits))
        } else if point >= digits.count {
            (whole, fraction) = (Substring(digits + String(repeating: "0", count: point - digits.count)), "")
        } else {
            (whole, fraction) = (digits.prefix(point), digits.dropFirst(point))
        }
        // Leading zeros of the whole part and trailing zeros of the fraction carry nothing.
        while whole.count > 1, whole.first == "0" { whole = whole.dropFirst() }
        while fraction.last == "0" { fraction = fraction.dropLast() }
        return (negative ? "-" : "") + whole + (fraction.isEmpty ? "" : "." + fraction)
    }
}

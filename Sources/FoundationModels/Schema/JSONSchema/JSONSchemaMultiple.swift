import Foundation

/// Whether one JSON number is a whole multiple of another, for `multipleOf`.
enum JSONSchemaMultiple {
    /// Whether `value` is a whole multiple of `divisor`: when the `Double` quotient is whole, as JSON Schema
    /// validators compute it, or when the quotient of the decimals as written is, which a `Double`'s division can
    /// miss (`1 / 1e-5` is 99999.99999999999, and 1e-5 is still 1/100000). `nil` when the divisor is not positive or
    /// the quotient overflows.
    static func isMultiple(_ value: Double, of divisor: Double) -> Bool? {
        guard divisor > 0 else { return nil }
        let quotient = value / divisor
        guard quotient.isFinite else { return nil }
        if quotient == quotient.rounded() { return true }
        // A Double's description is its shortest text, which Decimal reads exactly.
        guard let decimalValue = Decimal(string: "\(value)"), let decimalDivisor = Decimal(string: "\(divisor)") else { return false }
        var exact = decimalValue / decimalDivisor
        var whole = Decimal()
        NSDecimalRound(&whole, &exact, 0, .plain)
        return whole == exact
    }
}

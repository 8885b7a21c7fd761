public import Foundation

extension GenerationGuide where Value == Decimal {
    /// Enforces a minimum value (inclusive).
    public static func minimum(_ value: Decimal) -> GenerationGuide<Decimal> {
        GenerationGuide([.minimum(value.doubleBound(roundingUp: true))])
    }

    /// Enforces a maximum value (inclusive).
    public static func maximum(_ value: Decimal) -> GenerationGuide<Decimal> {
        GenerationGuide([.maximum(value.doubleBound(roundingUp: false))])
    }

    /// Enforces that the value lies within a closed range.
    public static func range(_ range: ClosedRange<Decimal>) -> GenerationGuide<Decimal> {
        GenerationGuide([.minimum(range.lowerBound.doubleBound(roundingUp: true)), .maximum(range.upperBound.doubleBound(roundingUp: false))])
    }
}

extension Decimal {
    /// A `Double` for this value as a guide's bound: the nearest one whose shortest text lies at or above the
    /// value (`up`, for a minimum) or at or below it (for a maximum).
    ///
    /// The decoder enforces a bound by the `Double`'s shortest text, and a `Decimal` may have more digits than a
    /// `Double` holds: the nearest one alone could move the bound outward (`0.30000000000000000001` would be
    /// `0.3`, letting `0.3` through a minimum it is below).
    func doubleBound(roundingUp up: Bool) -> Double {
        var bound = doubleValue
        // A value that came from a Double (a float literal such as `19.99` is stored as 19.98999999999999488) is
        // that Double: rounding it inward would leave out the number the user wrote. Several Doubles next to one
        // another convert to one Decimal, so the one written shortest is taken.
        if bound.isFinite {
            var near = [bound]
            var (below, above) = (bound, bound)
            for _ in 0..<4 {
                (below, above) = (below.nextDown, above.nextUp)
                near += [below, above]
            }
            if let written = near.filter({ Decimal($0) == self }).min(by: { "\($0)".count < "\($1)".count }) { return written }
        }
        // A Double's description is its shortest text, which Decimal reads exactly.
        while bound.isFinite, let text = Decimal(string: "\(bound)"), up ? text < self : text > self {
            bound = up ? bound.nextUp : bound.nextDown
        }
        return bound
    }

    /// The nearest `Double`.
    var doubleValue: Double {
        // Decimal's description is exact, and Double's parser rounds it correctly.
        Double(description) ?? 0
    }
}

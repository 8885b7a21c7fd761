public import Foundation

extension GenerationGuide where Value == Decimal {
    /// Enforces a minimum value (inclusive).
    public static func minimum(_ value: Decimal) -> GenerationGuide<Decimal> {
        GenerationGuide([.minimum(value.doubleValue)])
    }

    /// Enforces a maximum value (inclusive).
    public static func maximum(_ value: Decimal) -> GenerationGuide<Decimal> {
        GenerationGuide([.maximum(value.doubleValue)])
    }

    /// Enforces that the value lies within a closed range.
    public static func range(_ range: ClosedRange<Decimal>) -> GenerationGuide<Decimal> {
        GenerationGuide([.minimum(range.lowerBound.doubleValue), .maximum(range.upperBound.doubleValue)])
    }
}

extension Decimal {
    /// The nearest `Double`, used for numeric guide bounds.
    var doubleValue: Double {
        // Decimal's description is exact, and Double's parser rounds it correctly.
        Double(description) ?? 0
    }
}

import Foundation

/// Maps a numeric domain linearly onto a pixel range, and picks round tick values for an axis.
package struct LinearScale: Sendable, Equatable {
    /// The domain's first value (mapped to ``rangeStart``).
    package var domainStart: Double
    /// The domain's last value (mapped to ``rangeEnd``).
    package var domainEnd: Double
    /// Where ``domainStart`` lands.
    package var rangeStart: Double
    /// Where ``domainEnd`` lands (may be below ``rangeStart``, as on a y axis that grows upwards).
    package var rangeEnd: Double

    /// Creates a scale from `domain` onto `range`.
    package init(domain: (Double, Double), range: (Double, Double)) {
        domainStart = domain.0
        domainEnd = domain.1
        rangeStart = range.0
        rangeEnd = range.1
    }

    /// The position of `value`; an empty domain maps everything to the range's start.
    package func callAsFunction(_ value: Double) -> Double {
        let span = domainEnd - domainStart
        guard span != 0, span.isFinite else { return rangeStart }
        return rangeStart + (value - domainStart) / span * (rangeEnd - rangeStart)
    }

    /// A round step (1, 2 or 5 times a power of ten) that cuts `span` into about `count` intervals.
    package static func niceStep(span: Double, count: Int) -> Double {
        RoundStep(span: span, count: count).value(1)
    }

    /// The scale with its domain widened outwards to multiples of a round step; with `wholeNumbers` (an axis
    /// of counts) the step is at least 1, so no tick reads half a record.
    package func niced(count: Int, wholeNumbers: Bool = false) -> LinearScale {
        let lower = min(domainStart, domainEnd), upper = max(domainStart, domainEnd)
        let step = RoundStep(span: upper - lower, count: count, wholeNumbers: wholeNumbers)
        let lowerIndex = Int((lower / step.value(1) + 1e-9).rounded(.down))
        let upperIndex = max(Int((upper / step.value(1) - 1e-9).rounded(.up)), lowerIndex + 1)
        var scale = self
        if domainStart <= domainEnd {
            scale.domainStart = step.value(lowerIndex)
            scale.domainEnd = step.value(upperIndex)
        } else {
            scale.domainStart = step.value(upperIndex)
            scale.domainEnd = step.value(lowerIndex)
        }
        return scale
    }

    /// Round values inside the domain, about `count` intervals apart, in increasing order; whole numbers only
    /// with `wholeNumbers`.
    package func ticks(count: Int, wholeNumbers: Bool = false) -> [Double] {
        let lower = min(domainStart, domainEnd), upper = max(domainStart, domainEnd)
        guard upper > lower else { return [lower] }
        let step = RoundStep(span: upper - lower, count: count, wholeNumbers: wholeNumbers)
        let first = Int((lower / step.value(1) - 1e-9).rounded(.up))
        let last = Int((upper / step.value(1) + 1e-9).rounded(.down))
        guard first <= last else { return [] }
        return (first...last).map(step.value)
    }
}

/// A round step as an integer mantissa (1, 2 or 5) and a power of ten, so its multiples are computed exactly
/// (3 × 0.2 is 0.6, not 0.6000000000000001) and tick labels come out clean.
private struct RoundStep {
    var mantissa: Int
    var exponent: Int

    init(span: Double, count: Int, wholeNumbers: Bool = false) {
        guard span > 0, span.isFinite, count > 0 else {
            mantissa = 1
            exponent = 0
            return
        }
        let raw = span / Double(count)
        exponent = Int(log10(raw).rounded(.down))
        let fraction = raw / pow(10, Double(exponent))
        // A tolerance keeps 0.30000000000000004 / 3 on a step of 0.1 rather than 0.2.
        let tolerance = 1e-9
        if fraction <= 1 + tolerance {
            mantissa = 1
        } else if fraction <= 2 + tolerance {
            mantissa = 2
        } else if fraction <= 5 + tolerance {
            mantissa = 5
        } else {
            mantissa = 1
            exponent += 1
        }
        if wholeNumbers, exponent < 0 {
            mantissa = 1
            exponent = 0
        }
    }

    /// `multiple` steps.
    func value(_ multiple: Int) -> Double {
        let integer = Double(multiple * mantissa)
        return exponent >= 0 ? integer * pow(10, Double(exponent)) : integer / pow(10, Double(-exponent))
    }
}

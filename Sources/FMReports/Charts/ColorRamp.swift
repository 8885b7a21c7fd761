import Foundation

/// An sRGB colour with 0…1 channels.
package struct RGB: Sendable, Hashable {
    /// The red channel.
    package var red: Double
    /// The green channel.
    package var green: Double
    /// The blue channel.
    package var blue: Double

    /// Creates a colour from 0…1 channels.
    package init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Creates a colour from `0xRRGGBB`.
    package init(hex: UInt32) {
        self.init(red: Double((hex >> 16) & 0xFF) / 255, green: Double((hex >> 8) & 0xFF) / 255, blue: Double(hex & 0xFF) / 255)
    }

    /// `#rrggbb`.
    package var hex: String {
        func byte(_ channel: Double) -> Int { Int((min(max(channel, 0), 1) * 255).rounded()) }
        return String(format: "#%02x%02x%02x", byte(red), byte(green), byte(blue))
    }

    /// The WCAG relative luminance (0 black … 1 white).
    package var relativeLuminance: Double {
        func linear(_ channel: Double) -> Double {
            channel <= 0.04045 ? channel / 12.92 : pow((channel + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// The WCAG contrast ratio with another colour (1…21).
    package func contrastRatio(with other: RGB) -> Double {
        let (lighter, darker) = relativeLuminance >= other.relativeLuminance
            ? (relativeLuminance, other.relativeLuminance) : (other.relativeLuminance, relativeLuminance)
        return (lighter + 0.05) / (darker + 0.05)
    }

    /// The colour a fraction `t` of the way to `other`, mixed in linear light so midpoints do not darken.
    package func mixed(with other: RGB, _ t: Double) -> RGB {
        func toLinear(_ channel: Double) -> Double { channel <= 0.04045 ? channel / 12.92 : pow((channel + 0.055) / 1.055, 2.4) }
        func toGamma(_ channel: Double) -> Double { channel <= 0.0031308 ? channel * 12.92 : 1.055 * pow(channel, 1 / 2.4) - 0.055 }
        func mix(_ a: Double, _ b: Double) -> Double { toGamma(toLinear(a) + (toLinear(b) - toLinear(a)) * t) }
        return RGB(red: mix(red, other.red), green: mix(green, other.green), blue: mix(blue, other.blue))
    }

    /// Dark text.
    package static let ink = RGB(hex: 0x1F2328)
    /// White.
    package static let white = RGB(hex: 0xFFFFFF)
    /// The fill of an empty heatmap cell.
    package static let empty = RGB(hex: 0xF3F4F6)

    /// Whichever of dark ink and white reads better on `background`.
    package static func text(on background: RGB) -> RGB {
        background.contrastRatio(with: ink) >= background.contrastRatio(with: white) ? ink : white
    }
}

/// A sequential colour scale: evenly spaced stops, interpolated between, for values from 0 to 1.
package struct ColorRamp: Sendable, Hashable {
    /// The stops, from the colour of 0 to the colour of 1.
    package var stops: [RGB]

    /// Creates a ramp; it needs at least one stop.
    package init(stops: [RGB]) {
        precondition(!stops.isEmpty, "a ramp needs a colour")
        self.stops = stops
    }

    /// The colour of `value`, clamped to 0…1 (NaN counts as 0).
    package func color(at value: Double) -> RGB {
        let t = value.isNaN ? 0 : min(max(value, 0), 1)
        guard stops.count > 1 else { return stops[0] }
        let position = t * Double(stops.count - 1)
        let index = min(Int(position), stops.count - 2)
        return stops[index].mixed(with: stops[index + 1], position - Double(index))
    }

    /// Light to dark blue (ColorBrewer Blues): right answers, frequencies.
    package static let blues = ColorRamp(stops: [0xDEEBF7, 0x9ECAE1, 0x4292C6, 0x2171B5, 0x08306B].map(RGB.init(hex:)))
    /// Light to dark orange (ColorBrewer Oranges): confusions.
    package static let oranges = ColorRamp(stops: [0xFEE6CE, 0xFDAE6B, 0xF16913, 0xD94801, 0x7F2704].map(RGB.init(hex:)))

    /// Distinct colours for series (Tableau 10), repeated when there are more series.
    package static let categorical: [RGB] = [
        0x4E79A7, 0xF28E2B, 0xE15759, 0x76B7B2, 0x59A14F, 0xEDC948, 0xB07AA1, 0xFF9DA7, 0x9C755F, 0xBAB0AC,
    ].map(RGB.init(hex:))

    /// The colour of the `index`-th series.
    package static func series(_ index: Int) -> RGB { categorical[index % categorical.count] }
}

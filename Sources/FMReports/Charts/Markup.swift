import Foundation

/// Small helpers for writing SVG and HTML text.
package enum Markup {
    /// `text` with the five markup-significant characters escaped, for element content and quoted attributes.
    ///
    /// Works on Unicode scalars: a `<` or a quote can be part of a larger user-perceived character (after
    /// U+0600, or before a combining mark), and comparing whole characters would copy it out unescaped.
    package static func escape(_ text: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped.append(contentsOf: "&amp;".unicodeScalars)
            case "<": escaped.append(contentsOf: "&lt;".unicodeScalars)
            case ">": escaped.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": escaped.append(contentsOf: "&quot;".unicodeScalars)
            case "'": escaped.append(contentsOf: "&#39;".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// A coordinate with at most one decimal, without a trailing `.0`.
    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 10).rounded() / 10
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return String(format: "%.1f", rounded)
    }

    /// A share as a percentage with one decimal: `62.5%`.
    package static func percent(_ value: Double) -> String {
        String(format: "%.1f%%", value * 100)
    }

    /// A tick label for an axis value: whole numbers plainly, others with up to two decimals.
    package static func tick(_ value: Double, percent isPercent: Bool = false) -> String {
        if isPercent { return String(Int((value * 100).rounded())) + "%" }
        if value == value.rounded(), abs(value) < 1e12 { return String(Int(value)) }
        return String(format: "%.2g", value)
    }

    /// A `<text>` element whose full text is kept in `data-label`, and in a tooltip when it was shortened.
    package static func label(_ shown: String, full: String, attributes: String) -> String {
        let text = "<text \(attributes) data-label=\"\(escape(full))\">\(escape(shown))</text>"
        return shown == full ? text : "<g><title>\(escape(full))</title>\(text)</g>"
    }
}

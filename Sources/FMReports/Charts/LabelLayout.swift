/// Text measurement and placement for chart labels, done in Swift so the pages need no script.
///
/// Widths are estimated from DejaVu Sans advance widths (the font the pages ask for first, and a wide one, so
/// other fonts fit in the space reserved).
package enum LabelLayout {
    /// DejaVu Sans advance widths in ems for ASCII 32 (space) through 126 (`~`).
    private static let asciiWidths: [Double] = [
        0.318, 0.401, 0.460, 0.838, 0.636, 0.950, 0.780, 0.275, 0.390, 0.390, 0.500, 0.838, 0.318, 0.361, 0.318, 0.337,
        0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.337, 0.337, 0.838, 0.838, 0.838, 0.531,
        1.000, 0.684, 0.686, 0.698, 0.770, 0.632, 0.575, 0.775, 0.752, 0.295, 0.295, 0.656, 0.557, 0.863, 0.748, 0.787,
        0.603, 0.787, 0.695, 0.635, 0.611, 0.732, 0.684, 0.989, 0.685, 0.611, 0.685, 0.390, 0.337, 0.390, 0.838, 0.500,
        0.500, 0.613, 0.635, 0.550, 0.635, 0.615, 0.352, 0.635, 0.634, 0.278, 0.278, 0.579, 0.278, 0.974, 0.634, 0.612,
        0.635, 0.635, 0.411, 0.521, 0.392, 0.634, 0.592, 0.818, 0.592, 0.592, 0.525, 0.636, 0.337, 0.636, 0.838,
    ]

    /// The estimated width of `text` at `fontSize` pixels.
    package static func width(of text: String, fontSize: Double) -> Double {
        var ems = 0.0
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 32...126: ems += asciiWidths[Int(scalar.value) - 32]
            case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F: break  // combining marks, zero-width characters
            case 0x1100...0x11FF, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFF00...0xFF60, 0x1F300...0x1FAFF: ems += 1
            default: ems += 0.65
            }
        }
        return ems * fontSize
    }

    /// `text`, cut at the end and marked with an ellipsis if it is wider than `maximumWidth`.
    package static func fit(_ text: String, maximumWidth: Double, fontSize: Double) -> String {
        guard width(of: text, fontSize: fontSize) > maximumWidth else { return text }
        let ellipsis = "…"
        let room = maximumWidth - width(of: ellipsis, fontSize: fontSize)
        var kept = ""
        var used = 0.0
        for character in text {
            let characterWidth = width(of: String(character), fontSize: fontSize)
            if used + characterWidth > room { break }
            kept.append(character)
            used += characterWidth
        }
        while kept.last?.isWhitespace == true { kept.removeLast() }
        return kept + ellipsis
    }

    /// How a row of column labels is drawn.
    package struct ColumnLabels: Sendable, Equatable {
        /// The rotation in degrees: 0 (horizontal), -45 or -90 (reading upwards).
        package var rotation: Double
        /// The label texts, shortened where needed.
        package var texts: [String]
        /// The height the labels take above the columns.
        package var height: Double
    }

    /// Lays out labels over columns `band` pixels wide: horizontal when every label fits its column, else at
    /// -45° when neighbouring labels still clear each other, else upright; no label runs past `maximumLength`.
    package static func columnLabels(_ labels: [String], band: Double, fontSize: Double, maximumLength: Double) -> ColumnLabels {
        let widths = labels.map { width(of: $0, fontSize: fontSize) }
        if widths.allSatisfy({ $0 <= band - 4 }) {
            return ColumnLabels(rotation: 0, texts: labels, height: fontSize * 1.5)
        }
        let texts = labels.map { fit($0, maximumWidth: maximumLength, fontSize: fontSize) }
        let longest = texts.map { width(of: $0, fontSize: fontSize) }.max() ?? 0
        // Parallel labels at -45° sit band·sin 45° apart across their baselines; they need a line height.
        if band * 0.7071 >= fontSize * 1.05 {
            return ColumnLabels(rotation: -45, texts: texts, height: (longest + fontSize) * 0.7071 + 4)
        }
        return ColumnLabels(rotation: -90, texts: texts, height: longest + 6)
    }

    /// The width a column of row labels needs: the widest label plus padding, at most `maximumWidth`.
    package static func rowLabelWidth(_ labels: [String], fontSize: Double, maximumWidth: Double) -> Double {
        min(maximumWidth, (labels.map { width(of: $0, fontSize: fontSize) }.max() ?? 0) + 8)
    }
}

extension LabelLayout {
    /// Every how many evenly spaced axis labels one is written so that written labels keep `gap` pixels apart.
    package static func labelStride(_ labels: [String], band: Double, fontSize: Double, gap: Double = 8) -> Int {
        guard band > 0 else { return max(labels.count, 1) }
        let widest = labels.map { width(of: $0, fontSize: fontSize) }.max() ?? 0
        return max(1, Int(((widest + gap) / band).rounded(.up)))
    }

    /// Breaks legend entries of the given widths into lines no wider than `width`; returns each entry's line.
    package static func legendLines(_ entryWidths: [Double], width: Double) -> [Int] {
        var lines: [Int] = []
        var line = 0
        var used = 0.0
        for entry in entryWidths {
            if used > 0, used + entry > width {
                line += 1
                used = 0
            }
            lines.append(line)
            used += entry
        }
        return lines
    }
}

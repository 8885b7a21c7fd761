import Foundation
import FMReports
import Testing

@Suite struct LabelLayoutTests {
    @Test func widthGrowsWithTextAndFontSize() {
        #expect(LabelLayout.width(of: "", fontSize: 12) == 0)
        #expect(LabelLayout.width(of: "ab", fontSize: 12) > LabelLayout.width(of: "a", fontSize: 12))
        #expect(LabelLayout.width(of: "abc", fontSize: 24) == 2 * LabelLayout.width(of: "abc", fontSize: 12))
        #expect(LabelLayout.width(of: "mmm", fontSize: 12) > LabelLayout.width(of: "iii", fontSize: 12))
        #expect(LabelLayout.width(of: "日本", fontSize: 10) == 20)
    }

    @Test func fitKeepsShortTextAndShortensLongText() {
        #expect(LabelLayout.fit("spam", maximumWidth: 100, fontSize: 12) == "spam")
        let long = "top_up_by_bank_transfer_charge_and_some_more"
        let fitted = LabelLayout.fit(long, maximumWidth: 120, fontSize: 12)
        #expect(fitted.hasSuffix("…"))
        #expect(long.hasPrefix(String(fitted.dropLast())))
        #expect(LabelLayout.width(of: fitted, fontSize: 12) <= 120)
    }

    @Test func fitNeverEndsOnASpaceBeforeTheEllipsis() {
        let fitted = LabelLayout.fit("home and living room", maximumWidth: LabelLayout.width(of: "home …", fontSize: 12), fontSize: 12)
        #expect(fitted == "home…")
    }

    @Test func columnLabelsStayHorizontalWhenTheyFit() {
        let layout = LabelLayout.columnLabels(["ham", "spam"], band: 48, fontSize: 12, maximumLength: 170)
        #expect(layout.rotation == 0)
        #expect(layout.texts == ["ham", "spam"])
    }

    @Test func longColumnLabelsTurnDiagonalThenUpright() {
        let labels = ["offensive_language", "hate_speech", "neither"]
        let diagonal = LabelLayout.columnLabels(labels, band: 40, fontSize: 12, maximumLength: 170)
        #expect(diagonal.rotation == -45)
        let width = LabelLayout.width(of: "offensive_language", fontSize: 12)
        #expect(diagonal.height >= width * 0.7071)
        let upright = LabelLayout.columnLabels(labels, band: 14, fontSize: 12, maximumLength: 170)
        #expect(upright.rotation == -90)
        #expect(upright.height >= width)
    }

    @Test func columnLabelsNeverExceedTheMaximumLength() {
        let long = String(repeating: "confusion", count: 10)
        let layout = LabelLayout.columnLabels([long], band: 20, fontSize: 12, maximumLength: 100)
        #expect(LabelLayout.width(of: layout.texts[0], fontSize: 12) <= 100)
        #expect(layout.height <= 100 + 8)
    }

    @Test func axisLabelStrideKeepsLabelsApart() {
        let months = (1...36).map { String(format: "2020-%02d", $0) }
        let band = 640.0 / Double(months.count)
        let stride = LabelLayout.labelStride(months, band: band, fontSize: 11)
        let widest = months.map { LabelLayout.width(of: $0, fontSize: 11) }.max() ?? 0
        #expect(Double(stride) * band >= widest + 8)
        #expect(Double(stride - 1) * band < widest + 8, "no sparser than needed")
        #expect(LabelLayout.labelStride(["a", "b"], band: 300, fontSize: 11) == 1)
    }

    @Test func legendWrapsWhenTooWide() {
        #expect(LabelLayout.legendLines([100, 100, 100], width: 250) == [0, 0, 1])
        #expect(LabelLayout.legendLines([300], width: 250) == [0], "an entry wider than the line still gets a line")
        #expect(LabelLayout.legendLines([], width: 250) == [])
    }
}

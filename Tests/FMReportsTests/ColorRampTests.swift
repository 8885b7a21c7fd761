import FMReports
import Testing

@Suite struct ColorRampTests {
    @Test func hexRoundTrips() {
        #expect(RGB(hex: 0x4E79A7).hex == "#4e79a7")
        #expect(RGB(hex: 0x000000).hex == "#000000")
        #expect(RGB(hex: 0xFFFFFF).hex == "#ffffff")
    }

    @Test func rampEndsAtItsStopsAndClamps() {
        let ramp = ColorRamp.blues
        #expect(ramp.color(at: 0) == ramp.stops.first)
        #expect(ramp.color(at: 1).hex == ramp.stops.last?.hex)
        #expect(ramp.color(at: -3) == ramp.color(at: 0))
        #expect(ramp.color(at: 7).hex == ramp.color(at: 1).hex)
        #expect(ramp.color(at: .nan) == ramp.color(at: 0))
    }

    /// A sequential ramp must darken steadily, or a larger count could look smaller.
    @Test(arguments: [ColorRamp.blues, ColorRamp.oranges])
    func luminanceFallsMonotonically(_ ramp: ColorRamp) {
        let luminances = stride(from: 0.0, through: 1.0, by: 0.02).map { ramp.color(at: $0).relativeLuminance }
        for (lighter, darker) in zip(luminances, luminances.dropFirst()) { #expect(darker < lighter) }
    }

    @Test func contrastRatioMatchesWCAG() {
        #expect(abs(RGB.white.contrastRatio(with: RGB(hex: 0x000000)) - 21) < 1e-9)
        #expect(RGB.white.contrastRatio(with: .white) == 1)
    }

    /// Counts written on any cell colour stay readable: the chosen ink beats the alternative and passes 4.5:1
    /// (WCAG AA) everywhere except the few mid-ramp tones where neither colour does, which still clear 3:1.
    @Test(arguments: [ColorRamp.blues, ColorRamp.oranges])
    func textColourIsTheMoreReadableOne(_ ramp: ColorRamp) {
        for step in stride(from: 0.0, through: 1.0, by: 0.01) {
            let background = ramp.color(at: step)
            let text = RGB.text(on: background)
            let other = text == .white ? RGB.ink : RGB.white
            #expect(background.contrastRatio(with: text) >= background.contrastRatio(with: other))
            #expect(background.contrastRatio(with: text) >= 3, "\(background.hex)")
        }
        #expect(RGB.empty.contrastRatio(with: RGB.text(on: .empty)) >= 4.5)
    }

    @Test func seriesColoursRepeatAfterThePalette() {
        #expect(ColorRamp.series(0) != ColorRamp.series(1))
        #expect(ColorRamp.series(ColorRamp.categorical.count) == ColorRamp.series(0))
    }
}

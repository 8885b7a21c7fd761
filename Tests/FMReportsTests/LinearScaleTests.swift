import FMReports
import Testing

@Suite struct LinearScaleTests {
    @Test func mapsEndpointsAndMidpoint() {
        let scale = LinearScale(domain: (0, 10), range: (100, 300))
        #expect(scale(0) == 100)
        #expect(scale(10) == 300)
        #expect(scale(5) == 200)
    }

    @Test func reversedRangeGrowsUpwards() {
        let scale = LinearScale(domain: (0, 4), range: (200, 0))
        #expect(scale(0) == 200)
        #expect(scale(4) == 0)
        #expect(scale(1) == 150)
    }

    @Test func emptyDomainMapsToRangeStart() {
        let scale = LinearScale(domain: (3, 3), range: (10, 50))
        #expect(scale(3) == 10)
        #expect(scale(7) == 10)
    }

    @Test(arguments: [
        (1.0, 4, 0.5), (10.0, 4, 5.0), (37.0, 4, 10.0), (0.9, 5, 0.2), (1234.0, 5, 500.0), (3.0, 3, 1.0),
    ])
    func niceSteps(span: Double, count: Int, expected: Double) {
        #expect(abs(LinearScale.niceStep(span: span, count: count) - expected) < 1e-12)
    }

    /// An axis of counts never ticks at half a record, however small the largest count.
    @Test(arguments: [1.0, 2, 3])
    func countAxesTickAtWholeNumbers(largest: Double) {
        let scale = LinearScale(domain: (0, largest), range: (0, 400)).niced(count: 4, wholeNumbers: true)
        let ticks = scale.ticks(count: 4, wholeNumbers: true)
        #expect(ticks.allSatisfy { $0 == $0.rounded() }, "\(ticks)")
        #expect(ticks.first == 0 && ticks.last == largest, "\(ticks)")
        #expect(LinearScale(domain: (0, 2), range: (0, 400)).niced(count: 4).ticks(count: 4).contains(0.5))
    }

    @Test func nicedDomainEndsOnRoundNumbersAndTicksCoverIt() {
        let scale = LinearScale(domain: (0, 37), range: (0, 400)).niced(count: 4)
        #expect(scale.domainStart == 0)
        #expect(scale.domainEnd == 40)
        #expect(scale.ticks(count: 4) == [0, 10, 20, 30, 40])
    }

    @Test func ticksOfAShareAreExact() {
        let ticks = LinearScale(domain: (0, 1), range: (0, 360)).ticks(count: 5)
        #expect(ticks == [0, 0.2, 0.4, 0.6, 0.8, 1])
    }

    /// Over many domains, ticks are evenly spaced round values inside the niced domain and include both ends.
    @Test func ticksPropertySweep() {
        for upper in [0.3, 1, 2, 7, 9.5, 13, 99, 100, 101, 555, 4321] {
            for count in 2...8 {
                let scale = LinearScale(domain: (0, upper), range: (0, 1)).niced(count: count)
                let ticks = scale.ticks(count: count)
                #expect(ticks.first == scale.domainStart, "upper \(upper) count \(count)")
                #expect(abs((ticks.last ?? 0) - scale.domainEnd) < 1e-9, "upper \(upper) count \(count): \(ticks)")
                #expect(scale.domainEnd >= upper)
                let steps = zip(ticks, ticks.dropFirst()).map { $1 - $0 }
                #expect(steps.allSatisfy { abs($0 - steps[0]) < 1e-9 }, "upper \(upper) count \(count): \(ticks)")
                #expect(ticks.count - 1 <= count * 2 + 1, "about `count` intervals: \(ticks)")
            }
        }
    }
}

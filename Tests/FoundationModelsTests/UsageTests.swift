@testable import FoundationModels
import Testing

/// Token counts can come from a remote server or a third-party executor, so adding them up never traps.
@Suite struct UsageTests {
    typealias Usage = LanguageModelSession.Usage

    static func usage(input: Int, output: Int) -> Usage {
        Usage(input: .init(totalTokenCount: input, cachedTokenCount: input), output: .init(totalTokenCount: output, reasoningTokenCount: output))
    }

    @Test func sumsHoldAtTheEndsOfInt() {
        let huge = Self.usage(input: .max, output: 9)
        #expect(huge.totalTokenCount == .max)
        let twice = huge.adding(huge)
        #expect(twice.input.totalTokenCount == .max && twice.input.cachedTokenCount == .max)
        #expect(twice.output.totalTokenCount == 18 && twice.totalTokenCount == .max)
        let negative = Self.usage(input: .min, output: -1)
        #expect(negative.totalTokenCount == .min && negative.adding(negative).input.totalTokenCount == .min)
        #expect(Self.usage(input: 40, output: 9).adding(Self.usage(input: 80, output: 5)).totalTokenCount == 134)
    }
}

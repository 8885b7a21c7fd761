@testable import FMEngine
import Testing

/// Which failures of a run could pass another time, which decides whether a calibration table lacking that run is kept.
struct GenerationFailureTests {
    @Test func onlyRuntimeFailuresAndCancellationsAreTransient() {
        #expect(GenerationFailure.runtime("llama_decode returned 1").isTransient)
        #expect(GenerationFailure.cancelled.isTransient)
        #expect(!GenerationFailure.promptOverflow(tokenCount: 9_000).isTransient)
        #expect(!GenerationFailure.contextOverflow("The conversation reached the context window.").isTransient)
        #expect(!GenerationFailure.truncated("The model ended its turn before the value was complete.").isTransient)
        #expect(!GenerationFailure.truncated("The response reached the end of the context window.", atContextEnd: true).isTransient)
    }
}

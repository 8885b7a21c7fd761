import FoundationModels
import Testing

struct GenerationIDTests {
    @Test func newIdentifiersAreUnique() {
        #expect(GenerationID() != GenerationID())
        let id = GenerationID()
        #expect(Set([id, id]).count == 1)
    }
}

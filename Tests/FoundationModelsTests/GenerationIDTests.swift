import FoundationModels
import Testing

struct GenerationIDTests {
    @Test func newIdentifiersAreUnique() {
        #expect(GenerationID() != GenerationID())
        let id = GenerationID()
        #expect(Set([id, id]).count == 1)
    }

    /// Every snapshot of a response and its final content name a nested element alike, so a row keeps its
    /// identity while its properties stream in; other elements and other responses get other identifiers.
    @Test func nestedElementsKeepTheirIdentifiersAcrossSnapshots() throws {
        typealias Plan = GenerableMacroFixtures.Plan
        let root = GenerationID()
        let early = try Plan.PartiallyGenerated(GeneratedContent(json: #"{"days": [{"title": "Beach"}, {"ti"#).identified(by: root))
        let later = try Plan.PartiallyGenerated(GeneratedContent(json: #"{"days": [{"title": "Beach"}, {"title": "Hike"}]}"#).identified(by: root))
        #expect(early.id == root && later.id == root)
        let earlyIDs = try #require(early.days).map(\.id), laterIDs = try #require(later.days).map(\.id)
        #expect(earlyIDs == laterIDs)
        #expect(Set(laterIDs + [root]).count == 3)
        let other = try Plan.PartiallyGenerated(GeneratedContent(json: #"{"days": [{"title": "Beach"}]}"#).identified(by: GenerationID()))
        #expect(other.days?.first?.id != laterIDs.first)
    }

    /// Keys holding `.` or `[` cannot spell another value's path: `{"a.b": {}}` and `{"a": {"b": {}}}` in one
    /// response name different structures.
    @Test func keysThatLookLikePathsDoNotShareIdentifiers() throws {
        let root = GenerationID()
        let content = try GeneratedContent(json: #"{"a.b": {}, "a": {"b": {}}, "x[0]": {}, "x": [{}], "": {}, ".": {}}"#).identified(by: root)
        guard case .structure(let top, _) = content.kind, case .structure(let a, _)? = top["a"]?.kind,
              case .array(let x)? = top["x"]?.kind else { Issue.record("unexpected shape"); return }
        let ids = [top["a.b"]?.id, a["b"]?.id, top["x[0]"]?.id, x.first?.id, top[""]?.id, top["."]?.id].compactMap { $0 }
        #expect(ids.count == 6)
        #expect(Set(ids).count == 6, "\(ids)")
    }
}

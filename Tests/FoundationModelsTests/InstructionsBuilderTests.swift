import FoundationModels
import Testing

struct InstructionsBuilderTests {
    @Test func builderWithControlFlow() {
        let categories = ["news", "sports"]
        let brief = true
        let instructions = Instructions {
            "You categorize posts."
            for category in categories {
                "Category: \(category)"
            }
            if brief {
                "Answer in one word."
            } else {
                "Explain your answer."
            }
            Toy(kind: .mouse)
        }
        #expect(instructions.text == #"You categorize posts.\#nCategory: news\#nCategory: sports\#nAnswer in one word.\#n{"kind":"mouse"}"#)
    }

    @Test func representableInitializer() {
        #expect(Instructions("You're a helpful assistant.").text == "You're a helpful assistant.")
        #expect(Instructions(["a", "b"]).text == "a\nb")
        #expect(Instructions(GeneratedContent(properties: ["k": 1])).text == #"{"k":1}"#)
        let empty = Instructions {
            if Bool(false) {
                "never"
            }
        }
        #expect(empty.text.isEmpty)
    }
}

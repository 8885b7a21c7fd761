import FoundationModels
import Testing

struct PromptBuilderTests {
    @Test func stringsAndRepresentablesJoinWithNewlines() {
        let prompt = Prompt {
            "Write a haiku."
            "About cats."
        }
        #expect(prompt.text == "Write a haiku.\nAbout cats.")
        #expect(Prompt("One line").text == "One line")
    }

    @Test(arguments: [true, false])
    func ifWithoutElseAddsNothingWhenFalse(_ rhyme: Bool) {
        let prompt = Prompt {
            "Answer the question."
            if rhyme {
                "Your response MUST rhyme!"
            }
            "Thanks."
        }
        #expect(prompt.text == (rhyme ? "Answer the question.\nYour response MUST rhyme!\nThanks." : "Answer the question.\nThanks."))
    }

    @Test(arguments: [0, 1, 2])
    func ifElseAndSwitch(_ choice: Int) {
        let prompt = Prompt {
            if choice == 0 {
                "zero"
            } else {
                "not zero"
            }
            switch choice {
            case 1: "one"
            default: "other"
            }
        }
        let first = choice == 0 ? "zero" : "not zero"
        #expect(prompt.text == "\(first)\n\(choice == 1 ? "one" : "other")")
    }

    @Test func forLoopsAndArrays() {
        let items = ["apples", "pears"]
        let prompt = Prompt {
            "Shopping list:"
            for item in items {
                "- \(item)"
            }
            ["a", "b"]
        }
        #expect(prompt.text == "Shopping list:\n- apples\n- pears\na\nb")
    }

    @Test func optionalsAndGenerableValues() {
        let cat = Cat(name: "Tom", age: 3)
        let note: String? = nil
        let prompt = Prompt {
            "Describe this cat:"
            cat
            if let note {
                note
            }
        }
        #expect(prompt.text == #"Describe this cat:\#n{"name":"Tom","age":3,"nickname":null,"toys":[]}"#)
    }

    @Test func nestedPromptsAndAvailability() {
        let inner = Prompt { "inner" }
        let prompt = Prompt {
            inner
            if #available(macOS 15, *) {
                "available"
            }
        }
        #expect(prompt.text == "inner\navailable")
    }

    @Test func builderClosuresCanThrow() {
        struct Failure: Error {}
        func fail() throws -> String { throw Failure() }
        #expect(throws: Failure.self) { try Prompt { try fail() } }
    }

    @Test func customRepresentable() {
        struct Figure: PromptRepresentable {
            var name: String
            var promptRepresentation: Prompt {
                "Name: \(name)"
                "Era: ancient"
            }
        }
        #expect(Prompt(Figure(name: "Hypatia")).text == "Name: Hypatia\nEra: ancient")
    }
}

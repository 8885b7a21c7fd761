import FoundationModels

/// Code from a module built with `NonisolatedNonsendingByDefault`, where a plain `async` function runs on its
/// caller's actor: a tool written the usual way still conforms to `Tool`, whose `call` Apple declares
/// `@concurrent`, and a session with it is called from the main actor. Compiling it is the check.
struct StationTool: Tool {
    let name = "stations"
    let description = "Lists the railway stations of a city."

    @Generable
    struct Arguments {
        @Guide(description: "The city")
        var city: String
    }

    func call(arguments: Arguments) async throws -> String {
        "\(arguments.city) Central, \(arguments.city) North"
    }
}

/// A helper that inherits its caller's isolation, as every `async` function of this module does.
func stations(in city: String, using session: LanguageModelSession) async throws -> String {
    try await session.respond(to: "Which stations does \(city) have?").content
}

@MainActor final class StationsViewModel {
    var answer = ""

    func load(city: String) async throws {
        let session = LanguageModelSession(tools: [StationTool()])
        answer = try await stations(in: city, using: session)
        try await SystemLanguageModel.Adapter(name: "stations").compile()
    }
}

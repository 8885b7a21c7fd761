import FoundationModels

/// The demo tool of `fm chat`: made-up weather for any city, so the model has something to call.
struct DemoWeatherTool: Tool {
    let name = "getWeather"
    let description = "Get the current weather for a city."

    /// The tool's arguments.
    @Generable
    struct Arguments {
        @Guide(description: "The city to get the weather for")
        var city: String
    }

    func call(arguments: Arguments) async throws -> String {
        // Deterministic fake data: the same city always gets the same weather.
        let conditions = ["sunny", "cloudy", "rainy", "windy", "snowy"]
        let hash = arguments.city.lowercased().unicodeScalars.reduce(0) { ($0 &* 31 &+ Int($1.value)) & 0xFFFF }
        return "The weather in \(arguments.city) is \(5 + hash % 25) degrees and \(conditions[hash % conditions.count])."
    }
}

extension Result: PromptRepresentable where Success: PromptRepresentable, Failure: PromptRepresentable {
    /// The prompt of the success value, or of the failure — so a tool can return `Result` and the model reads
    /// either outcome.
    ///
    /// ```swift
    /// func call(arguments: Arguments) async throws -> Result<String, LookupFailure> { … }
    /// ```
    public var promptRepresentation: Prompt {
        switch self {
        case .success(let value): return value.promptRepresentation
        case .failure(let error): return error.promptRepresentation
        }
    }
}

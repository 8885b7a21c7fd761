extension SystemLanguageModel {
    /// What the model is specialised for.
    ///
    /// ```swift
    /// let tagger = SystemLanguageModel(useCase: .contentTagging)
    /// ```
    public struct UseCase: Sendable, Equatable {
        enum Kind: String, Sendable { case general, contentTagging }
        let kind: Kind

        /// A use case for general prompting: the base model's normal chat behaviour.
        public static let general = UseCase(kind: .general)

        /// A use case for content tagging.
        ///
        /// The model always responds with tags — topics by default, or the emotions, actions and objects
        /// your instructions or output type ask for — and never answers the input. Tags are one to a few
        /// lowercase words.
        public static let contentTagging = UseCase(kind: .contentTagging)
    }
}

extension LanguageModelSession {
    /// A structure that stores the output of a response call.
    public struct Response<Content> where Content: Generable {
        /// The response content.
        public let content: Content
        /// The raw response content; the same as ``content`` when `Content` is ``GeneratedContent``.
        public let rawContent: GeneratedContent
        /// The transcript entries this call added: the prompt, any reasoning, tool calls and outputs, and the response.
        public let transcriptEntries: ArraySlice<Transcript.Entry>
        /// Information about how many tokens were used by this response (every round of a tool loop included).
        public let usage: Usage

        init(content: Content, rawContent: GeneratedContent, transcriptEntries: ArraySlice<Transcript.Entry>, usage: Usage) {
            self.content = content
            self.rawContent = rawContent
            self.transcriptEntries = transcriptEntries
            self.usage = usage
        }
    }
}

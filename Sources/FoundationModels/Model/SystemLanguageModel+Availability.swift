extension SystemLanguageModel {
    /// Whether the model can take requests now.
    @frozen
    public enum Availability: Equatable, Sendable {
        /// The system is ready for making requests.
        case available
        /// The system is not ready for requests, for the given reason.
        case unavailable(UnavailableReason)

        /// Why the model is unavailable.
        ///
        /// On Linux: ``modelNotReady`` means the model file is missing or could not be loaded;
        /// ``deviceNotEligible`` and ``appleIntelligenceNotEnabled`` never occur but exist for source
        /// compatibility. More reasons may be added, so keep a default branch.
        public enum UnavailableReason: Equatable, Hashable, Sendable {
            /// The device does not support the model.
            case deviceNotEligible
            /// The feature is turned off.
            case appleIntelligenceNotEnabled
            /// The model file is not on this machine (or is not a model llama.cpp can load).
            case modelNotReady
        }
    }
}

extension PrivateCloudComputeLanguageModel {
    /// Whether the model can take requests now.
    @frozen
    public enum Availability: Equatable, Sendable {
        /// The service is ready for requests.
        case available
        /// The service is not ready for requests, for the given reason.
        case unavailable(UnavailableReason)

        /// Why the model is unavailable.
        ///
        /// On Linux the reason is always ``deviceNotEligible``. More reasons may be added, so keep a default
        /// branch.
        public enum UnavailableReason: Equatable, Hashable, Sendable {
            /// The device cannot use Private Cloud Compute: on Linux, always.
            case deviceNotEligible
            /// The system is not ready to reach the service yet.
            case systemNotReady
        }
    }
}

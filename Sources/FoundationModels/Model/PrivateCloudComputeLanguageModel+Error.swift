public import Foundation

extension PrivateCloudComputeLanguageModel {
    /// A failure specific to the Private Cloud Compute model.
    ///
    /// On Linux every request fails with ``serviceUnavailable(_:)``.
    ///
    /// ```swift
    /// do {
    ///     _ = try await LanguageModelSession(model: PrivateCloudComputeLanguageModel()).respond(to: "Hello")
    /// } catch PrivateCloudComputeLanguageModel.Error.serviceUnavailable(let info) {
    ///     print(info.debugDescription)
    /// }
    /// ```
    public enum Error: Swift.Error, LocalizedError, CustomDebugStringConvertible {
        /// The network connection to the service failed.
        case networkFailure(NetworkFailure)
        /// The app has used its Private Cloud Compute quota for now.
        case quotaLimitReached(QuotaLimitReached)
        /// The service cannot take requests.
        case serviceUnavailable(ServiceUnavailable)

        /// A description for developers.
        public var debugDescription: String {
            switch self {
            case .networkFailure(let info): info.debugDescription
            case .quotaLimitReached(let info): info.debugDescription
            case .serviceUnavailable(let info): info.debugDescription
            }
        }

        /// What went wrong.
        public var errorDescription: String? {
            switch self {
            case .networkFailure: "The connection to Private Cloud Compute failed. \(debugDescription)"
            case .quotaLimitReached: "The Private Cloud Compute quota is used up. \(debugDescription)"
            case .serviceUnavailable: "Private Cloud Compute is not available. \(debugDescription)"
            }
        }

        /// Information about a failed connection.
        public struct NetworkFailure: Sendable {
            /// A description for developers.
            public var debugDescription: String

            /// Creates the information.
            public init(debugDescription: String) {
                self.debugDescription = debugDescription
            }
        }

        /// Information about a used-up quota.
        public struct QuotaLimitReached: Sendable {
            /// A way to ask for a larger quota, when there is one.
            public var limitIncreaseSuggestion: QuotaUsage.LimitIncreaseSuggestion?
            /// When the quota starts again, if known.
            public var resetDate: Date?
            /// A description for developers.
            public var debugDescription: String

            /// Creates the information.
            public init(
                limitIncreaseSuggestion: QuotaUsage.LimitIncreaseSuggestion? = nil,
                resetDate: Date? = nil,
                debugDescription: String
            ) {
                self.limitIncreaseSuggestion = limitIncreaseSuggestion
                self.resetDate = resetDate
                self.debugDescription = debugDescription
            }
        }

        /// Information about a service that cannot take requests.
        public struct ServiceUnavailable: Sendable {
            /// A description for developers.
            public var debugDescription: String

            /// Creates the information.
            public init(debugDescription: String) {
                self.debugDescription = debugDescription
            }
        }
    }
}

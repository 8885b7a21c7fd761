public import Foundation

extension SystemLanguageModel {
    /// A failure specific to the on-device system model.
    ///
    /// ```swift
    /// do {
    ///     _ = try await session.respond(to: "Hello")
    /// } catch SystemLanguageModel.Error.assetsUnavailable(let info) {
    ///     print(info.debugDescription)  // On Linux: which model file is missing and how to install it.
    /// }
    /// ```
    public enum Error: LocalizedError, CustomDebugStringConvertible {
        /// The model's files are missing or could not be loaded.
        case assetsUnavailable(AssetsUnavailable)

        /// Information about unavailable assets.
        public struct AssetsUnavailable: Sendable {
            /// A description for developers.
            public var debugDescription: String

            /// Creates the information.
            public init(debugDescription: String) {
                self.debugDescription = debugDescription
            }
        }

        /// A description for developers.
        public var debugDescription: String {
            switch self {
            case .assetsUnavailable(let info): info.debugDescription
            }
        }

        /// What went wrong.
        public var errorDescription: String? {
            "The model is not available. \(debugDescription)"
        }

        /// What to do about it.
        public var recoverySuggestion: String? {
            SystemLanguageModel.installSuggestion
        }
    }
}

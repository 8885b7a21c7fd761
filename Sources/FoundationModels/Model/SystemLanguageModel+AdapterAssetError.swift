public import Foundation

extension SystemLanguageModel.Adapter {
    /// Why an adapter could not be loaded.
    @available(macOS, deprecated: 26.4)
    @available(iOS, deprecated: 26.4)
    @available(visionOS, deprecated: 26.4)
    public enum AssetError: Swift.Error, LocalizedError {
        /// What went wrong.
        public struct Context: Sendable {
            /// A description for developers.
            public let debugDescription: String

            /// Creates a context.
            public init(debugDescription: String) {
                self.debugDescription = debugDescription
            }
        }

        /// No adapter of that name is installed, or it was made for another base model.
        case compatibleAdapterNotFound(Context)
        /// The name is not a valid adapter name.
        case invalidAdapterName(Context)
        /// The file is not a valid adapter.
        case invalidAsset(Context)

        /// A description of the error with its specifics.
        public var errorDescription: String? {
            switch self {
            case .compatibleAdapterNotFound(let context): "No compatible adapter was found. \(context.debugDescription)"
            case .invalidAdapterName(let context): "The adapter name is invalid. \(context.debugDescription)"
            case .invalidAsset(let context): "The adapter is invalid. \(context.debugDescription)"
            }
        }

        /// What to do about it.
        public var recoverySuggestion: String? {
            switch self {
            case .compatibleAdapterNotFound:
                "Install an adapter trained for this base model in the adapter directory, or pass its file with init(fileURL:)."
            case .invalidAdapterName:
                "Use the adapter's file name without its extension: letters, digits, '_' and '-'."
            case .invalidAsset:
                "Use a LoRA adapter in GGUF format made for this base model."
            }
        }
    }
}

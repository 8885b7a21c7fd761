extension PrivateCloudComputeLanguageModel: LanguageModel {
    /// What Apple's Private Cloud Compute model can do: guided generation, tool calling, reasoning and images.
    /// On Linux the session still fails, with ``Error-swift.enum/serviceUnavailable(_:)``, since the service
    /// cannot be reached.
    public var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities(capabilities: [.guidedGeneration, .toolCalling, .reasoning, .vision])
    }

    /// The configuration of the one executor all Private Cloud Compute sessions share.
    public var executorConfiguration: Executor.Configuration {
        Executor.Configuration()
    }

    /// An executor that sends session requests to Private Cloud Compute: on Linux, one that fails each
    /// request with ``PrivateCloudComputeLanguageModel/Error-swift.enum/serviceUnavailable(_:)``.
    public struct Executor: LanguageModelExecutor {
        /// The model type this executor processes requests for.
        public typealias Model = PrivateCloudComputeLanguageModel

        /// A configuration for an executor that reaches Private Cloud Compute.
        public struct Configuration: Hashable, Sendable {}

        /// Creates the executor.
        public init(configuration: Configuration) {}

        /// Does nothing: there is no service to warm up.
        public func prewarm(model: PrivateCloudComputeLanguageModel, transcript: Transcript) {}

        /// Fails: Private Cloud Compute cannot be reached from Linux.
        ///
        /// - Throws: ``PrivateCloudComputeLanguageModel/Error-swift.enum/serviceUnavailable(_:)``.
        public nonisolated(nonsending) func respond(
            to request: LanguageModelExecutorGenerationRequest,
            model: PrivateCloudComputeLanguageModel,
            streamingInto channel: LanguageModelExecutorGenerationChannel
        ) async throws {
            throw PrivateCloudComputeLanguageModel.Error.serviceUnavailable(
                .init(debugDescription: PrivateCloudComputeLanguageModel.unreachable))
        }
    }
}

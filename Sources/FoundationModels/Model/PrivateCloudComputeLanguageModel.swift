public import Foundation
public import Observation

/// Apple's larger model that runs on Private Cloud Compute servers, reached from Apple devices that carry the
/// Private Cloud Compute entitlement.
///
/// Linux machines cannot reach Private Cloud Compute, so on Linux this model is always
/// ``Availability-swift.enum/unavailable(_:)`` with ``Availability-swift.enum/UnavailableReason/deviceNotEligible``,
/// and a session that uses it fails with ``Error-swift.enum/serviceUnavailable(_:)``. It exists so that code
/// written for Apple's framework, which picks a model by availability, compiles and takes its fallback path:
///
/// ```swift
/// let cloud = PrivateCloudComputeLanguageModel()
/// let session = cloud.isAvailable
///     ? LanguageModelSession(model: cloud)
///     : LanguageModelSession(model: SystemLanguageModel.default)
/// ```
///
/// To run a larger model on Linux, use a larger catalogue model with ``SystemLanguageModel``, or a server
/// through ``ChatCompletionsLanguageModel``.
public final class PrivateCloudComputeLanguageModel: Sendable {
    /// Creates the Private Cloud Compute model.
    public init() {}

    /// Whether the model can take requests: on Linux, never.
    public var availability: Availability {
        .unavailable(.deviceNotEligible)
    }

    /// Whether ``availability`` is ``Availability-swift.enum/available``: on Linux, `false`.
    public var isAvailable: Bool {
        availability == .available
    }

    /// How much of the app's Private Cloud Compute quota is used.
    ///
    /// On Linux no request reaches the service, so the quota is never approached.
    public var quotaUsage: QuotaUsage {
        QuotaUsage(status: .belowLimit(.init(isApproachingLimit: false)), limitIncreaseSuggestion: nil, resetDate: nil)
    }

    /// The most tokens a session with this model holds.
    ///
    /// - Throws: ``Error-swift.enum/serviceUnavailable(_:)``: the service that reports it cannot be reached from Linux.
    public nonisolated(nonsending) var contextSize: Int {
        get async throws {
            throw Error.serviceUnavailable(.init(debugDescription: Self.unreachable))
        }
    }

    /// The languages the model supports here: none, since it cannot run on Linux.
    public var supportedLanguages: Set<Locale.Language> {
        []
    }

    /// Whether the model supports `locale`'s language here: on Linux, `false` for every locale.
    public func supportsLocale(_ locale: Locale = Locale.current) -> Bool {
        supportedLanguages.contains(locale.language)
    }

    /// Why nothing reaches the service, for error descriptions.
    static let unreachable = "Private Cloud Compute is reachable only from Apple devices with the Private Cloud Compute "
        + "entitlement, not from Linux. Use SystemLanguageModel with a catalogue model (`fm model list`), or "
        + "ChatCompletionsLanguageModel with a server."
}

extension PrivateCloudComputeLanguageModel: Observable {}

public import Foundation

extension PrivateCloudComputeLanguageModel {
    /// How much of the app's Private Cloud Compute quota is used, and what to do when it runs out.
    public struct QuotaUsage: Sendable {
        /// Below the limit, or at it.
        public var status: Status
        /// Whether the limit is reached.
        public var isLimitReached: Bool {
            if case .limitReached = status { return true }
            return false
        }
        /// A way to ask for a larger quota, when there is one.
        public var limitIncreaseSuggestion: LimitIncreaseSuggestion?
        /// When the quota starts again, if known.
        public var resetDate: Date?

        /// Where usage stands against the limit.
        public enum Status: Sendable {
            /// Requests can be made.
            case belowLimit(BelowLimit)
            /// Requests fail with ``PrivateCloudComputeLanguageModel/Error-swift.enum/quotaLimitReached(_:)``
            /// until the quota resets.
            case limitReached(LimitReached)

            /// Usage below the limit.
            public struct BelowLimit: Sendable {
                /// Whether usage is close to the limit.
                public var isApproachingLimit: Bool
            }

            /// Usage at the limit.
            public struct LimitReached: Sendable {}
        }

        /// A way to ask for a larger quota.
        public struct LimitIncreaseSuggestion: Sendable {
            /// Presents the system's offer of a larger quota. Linux has no such offer, so this does nothing.
            public func show() {}
        }
    }
}

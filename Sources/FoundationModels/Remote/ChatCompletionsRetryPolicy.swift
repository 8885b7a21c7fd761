public import Foundation

/// How a ``ChatCompletionsLanguageModel`` retries requests the server turned away for now (HTTP 429 and 503).
///
/// The delay doubles from ``initialDelay`` with each retry, up to ``maximumDelay``; a `Retry-After` header
/// replaces it, bounded by ``maximumDelay`` as well. Only requests that produced no output are retried.
///
/// ```swift
/// let policy = ChatCompletionsRetryPolicy(maximumRetries: 5, initialDelay: 0.5, maximumDelay: 20)
/// ```
public struct ChatCompletionsRetryPolicy: Hashable, Sendable {
    /// How many times a turned-away request is sent again; 0 never retries.
    public var maximumRetries: Int
    /// The delay before the first retry, in seconds.
    public var initialDelay: TimeInterval
    /// The longest delay before any retry, in seconds, also bounding a server's `Retry-After`.
    public var maximumDelay: TimeInterval

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - maximumRetries: How many times a turned-away request is sent again (negative counts as 0).
    ///   - initialDelay: The delay before the first retry, in seconds.
    ///   - maximumDelay: The longest delay before a retry, in seconds.
    public init(maximumRetries: Int = 3, initialDelay: TimeInterval = 0.5, maximumDelay: TimeInterval = 30) {
        self.maximumRetries = max(0, maximumRetries)
        self.initialDelay = max(0, initialDelay)
        self.maximumDelay = max(0, maximumDelay)
    }

    /// Three retries, starting at half a second, at most 30 seconds apart.
    public static var `default`: ChatCompletionsRetryPolicy { ChatCompletionsRetryPolicy() }

    /// Never retries.
    public static var none: ChatCompletionsRetryPolicy { ChatCompletionsRetryPolicy(maximumRetries: 0) }

    /// The status codes that mean "try again later".
    static func isRetryable(status: Int) -> Bool { status == 429 || status == 503 }

    /// The delay before retry number `retry` (1 for the first), in seconds.
    ///
    /// - Parameter retryAfter: The server's `Retry-After`, in seconds from now, when it sent one.
    ///
    /// The result is a finite number of seconds from 0 to ``PlainHTTPStream/longestWait``, whatever the properties
    /// were set to: `Duration.seconds` traps on NaN and infinity, and a cap of `.infinity` would let a server's
    /// `Retry-After` hold the request for years.
    func delay(beforeRetry retry: Int, retryAfter: TimeInterval?) -> TimeInterval {
        let cap = Self.waitable(maximumDelay)
        if let retryAfter { return min(Self.waitable(retryAfter), cap) }
        // 2^(retry - 1), without overflowing for absurd retry counts.
        let factor = pow(2, Double(min(max(retry - 1, 0), 62)))
        return min(Self.waitable(Self.waitable(initialDelay) * factor), cap)
    }

    /// `seconds` within 0 ... ``PlainHTTPStream/longestWait``; NaN and negative values wait not at all.
    private static func waitable(_ seconds: TimeInterval) -> TimeInterval {
        guard seconds > 0 else { return 0 }  // also NaN, which compares false
        return min(seconds, PlainHTTPStream.longestWait)
    }

    /// The seconds a `Retry-After` header value asks to wait: a number of seconds, or an HTTP date.
    static func retryAfterSeconds(_ value: String, now: Date = Date()) -> TimeInterval? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = TimeInterval(text), seconds.isFinite, seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

public import FMCache
public import FoundationModels
import Foundation

/// Tags a list of records and reports each outcome in input order; bad records get an error, never a gap.
public struct TaggingRunner: Sendable {
    /// The tagger.
    public let tagger: Tagger
    /// Where deterministic results are looked up and stored; `nil` disables caching.
    public let cache: ResultCache?
    /// How many texts are decoded together (1 = one at a time).
    public let parallel: Int
    /// The configuration's fingerprint, made once: it spells out every example and calibration text, so making
    /// it for each record's two cache lookups would cost a job with a large example pool more than its cache hits.
    private let fingerprint: String

    /// Called when a result could not be stored (a full disk, a read-only database); the job goes on without it.
    private let storeFailed: @Sendable (any Error) -> Void

    /// Creates a runner.
    ///
    /// - Parameter storeFailed: Told each time a result could not be stored in `cache`, so the job can say that
    ///   its results are not being kept; the result itself is still reported.
    public init(tagger: Tagger, cache: ResultCache? = nil, parallel: Int = 1, storeFailed: @escaping @Sendable (any Error) -> Void = { _ in }) {
        self.tagger = tagger
        self.cache = cache
        self.parallel = max(1, parallel)
        self.storeFailed = storeFailed
        fingerprint = tagger.configuration.fingerprint
    }

    /// The cache key for a text under this runner's configuration.
    public func cacheKey(for text: String) -> String {
        // Batched decoding can tip near-ties (llama.cpp's arithmetic differs), so its results are kept apart.
        if let remote = tagger.configuration.remoteEngines {
            // A remote job's results depend on the servers and their model, not on a local file or batching.
            // "guarded": since remote jobs apply the job's guardrails, results stored before then are not reused.
            return ResultCache.key([remote.identity, fingerprint, "remote-guarded", text, Self.formerRecordPart])
        }
        let path = parallel == 1 ? "one-at-a-time" : "batched"
        return ResultCache.key([ModelIdentity.of(tagger.configuration.model.modelURL), fingerprint, path, text, Self.formerRecordPart])
    }

    /// The last part of every key, where a record's id once went (empty without examples): kept, so results
    /// stored before ids stopped mattering are still found.
    private static let formerRecordPart = ""

    /// Tags every record, calling `emit` once per record in input order.
    public func run(
        _ records: [TaggingRecord],
        emit: (TaggingRecord, Result<GeneratedContent, TaggingFailure>) throws -> Void
    ) async throws {
        let cacheable = cache != nil && tagger.configuration.isDeterministic
        var start = 0
        while start < records.count {
            // A cancelled job (a server client that left) stops between chunks rather than tagging the rest.
            try Task.checkCancellation()
            // Batches refill their slots as texts finish, so give them several texts per slot at a time.
            let chunkSize = parallel == 1 ? 1 : parallel * 8
            let chunk = Array(records[start..<min(start + chunkSize, records.count)])
            start += chunk.count
            var outcomes = [Result<GeneratedContent, TaggingFailure>?](repeating: nil, count: chunk.count)
            var pending: [(index: Int, text: String)] = []
            for (index, record) in chunk.enumerated() {
                switch record.text {
                case .failure(let failure):
                    outcomes[index] = .failure(failure)
                case .success(let text):
                    if cacheable, let cache, let stored = try? cache.value(forKey: cacheKey(for: text)),
                       let content = try? GeneratedContent(json: stored) {
                        outcomes[index] = .success(content)
                    } else {
                        pending.append((index, text))
                    }
                }
            }
            let results = await tagger.tag(pending.map(\.text), parallel: parallel)
            for (item, result) in zip(pending, results) {
                outcomes[item.index] = result
                if cacheable, tagger.configuration.remoteEngines?.storesResults ?? true, let cache, case .success(let content) = result {
                    do { try cache.store(content.compactJSONString, forKey: cacheKey(for: item.text)) } catch { storeFailed(error) }
                }
            }
            for (record, outcome) in zip(chunk, outcomes) {
                try emit(record, outcome ?? .failure(.init(code: "internal", message: "No outcome.")))
            }
        }
    }
}

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

    /// What a child task of ``run(_:emit:)`` finished: the next record read (`nil` at the end of the input), or
    /// the text of record `index` tagged.
    private enum Event: Sendable {
        case read(TaggingRecord?)
        case readFailed(any Error)
        case tagged(index: Int, text: String, Result<GeneratedContent, TaggingFailure>)
    }

    /// The last part of every key, where a record's id once went (empty without examples): kept, so results
    /// stored before ids stopped mattering are still found.
    private static let formerRecordPart = ""

    /// Tags every record, calling `emit` once per record in input order.
    ///
    /// Each record's outcome is emitted (and its result stored) as soon as every earlier record's is, so a job
    /// that is killed keeps all it finished. Up to `parallel` texts are in flight at once, refilled as each
    /// finishes, within a window of `parallel × 8` records past the last one emitted, which bounds what waits
    /// behind a slow text.
    public func run(
        _ records: [TaggingRecord],
        emit: (TaggingRecord, Result<GeneratedContent, TaggingFailure>) throws -> Void
    ) async throws {
        try await run(TaggingRecordList(records), emit: emit)
    }

    /// Tags the records of `source` as they arrive, calling `emit` once per record in input order.
    ///
    /// As the form that takes a list, with the records read one at a time beside the texts in flight: a
    /// record is emitted as soon as its outcome and every earlier one's are known, whether or not the next record
    /// has arrived, so input from a live pipe gets each line's result while the next one is awaited.
    public func run(
        _ source: any TaggingRecordSource,
        emit: (TaggingRecord, Result<GeneratedContent, TaggingFailure>) throws -> Void
    ) async throws {
        let cacheable = cache != nil && tagger.configuration.isDeterministic
        let remoteEngines = tagger.configuration.remoteEngines
        // Asked again for each result: the servers' answers may show a model swapped in during the job.
        var storesResults: Bool { cacheable && (remoteEngines?.storesResults ?? true) }
        let window = parallel == 1 ? 1 : parallel * 8
        let tagger = self.tagger
        var records: [Int: TaggingRecord] = [:]
        var waiting: [Int: Result<GeneratedContent, TaggingFailure>] = [:]
        var emitted = 0
        var next = 0
        var inFlight = 0
        var reading = false
        var exhausted = false
        var readFailure: (any Error)?
        try await withThrowingTaskGroup(of: Event.self) { group in
            func flush() throws {
                while let outcome = waiting.removeValue(forKey: emitted), let record = records.removeValue(forKey: emitted) {
                    try emit(record, outcome)
                    emitted += 1
                }
            }
            while true {
                // One read at a time, and only when the record read could start at once: a place is free and the
                // window, which bounds what waits behind a slow text, has room.
                if !reading, !exhausted, inFlight < parallel, next - emitted < window {
                    // A cancelled job (a server client that left) starts no more texts.
                    try Task.checkCancellation()
                    group.addTask {
                        do { return .read(try await source.next()) } catch { return .readFailed(error) }
                    }
                    reading = true
                }
                guard reading || inFlight > 0, let event = try await group.next() else { break }
                switch event {
                case .read(nil):
                    reading = false
                    exhausted = true
                case .readFailed(let error):
                    // The texts in flight, and the finished ones behind them, are still written before it is thrown.
                    reading = false
                    exhausted = true
                    readFailure = error
                case .read(let record?):
                    reading = false
                    let index = next
                    next += 1
                    records[index] = record
                    switch record.text {
                    case .failure(let failure):
                        waiting[index] = .failure(failure)
                    case .success(let text):
                        if cacheable, let cache, let stored = try? await cache.value(forKey: cacheKey(for: text)),
                           let content = try? GeneratedContent(json: stored) {
                            waiting[index] = .success(content)
                        } else {
                            group.addTask { .tagged(index: index, text: text, await tagger.tag(text)) }
                            inFlight += 1
                        }
                    }
                case .tagged(let index, let text, let result):
                    inFlight -= 1
                    if storesResults, let cache, case .success(let content) = result {
                        do { try await cache.store(content.compactJSONString, forKey: cacheKey(for: text)) } catch { storeFailed(error) }
                    }
                    waiting[index] = result
                }
                try flush()
            }
        }
        if let readFailure { throw readFailure }
    }
}

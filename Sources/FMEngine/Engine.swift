package import FMDecoding
import FMLlama
import Foundation
import Synchronization

/// Reports a growing response: the response bytes so far and the number of tokens they hold.
package typealias GenerationProgress = @Sendable (_ bytes: [UInt8], _ tokens: Int) -> Void

/// One model's token engine: every generation of the model — a lone request, concurrent sessions, a batch of
/// tagging requests, each round of a tool loop, a stream — runs through its one scheduler loop.
///
/// The loop runs on the engine's own serial queue, never on Swift's cooperative pool: llama.cpp computes on
/// the calling thread. Each step it admits waiting jobs, appends the text their grammars force, evaluates every
/// pending token of every job (one `llama_decode` per context), and makes each job's next decision with the
/// same code — masks, whole-value choice scoring, the loop guard, the limits (``SequenceDecoder``,
/// ``Generator/choose(_:output:matcher:context:calibration:recorder:levers:sequence:spares:text:votes:margin:)``).
///
/// Where a job runs depends only on what else is in flight: a job that arrives alone borrows a lone context from
/// the model's pool (the one whose cache shares the longest prefix with its prompt), and jobs that arrive while
/// others wait or run share the batch context, where a new job copies the longest matching prefix of any
/// sequence, so shared instructions are evaluated once. Greedy results are the same either way, except where
/// llama.cpp's batched arithmetic changes a near-tie between two tokens.
package final class Engine: Sendable {
    /// The model the engine runs.
    package let model: LoadedModel
    /// The most jobs decoded together in the batch context; more wait their turn.
    package static let batchSlots = 32

    private let queue: DispatchQueue
    private let inbox = Mutex(Inbox())
    private let loop: LoopState
    /// Calibration tables being computed, by key, so concurrent requests share one computation.
    private let calibrating = Mutex(ComputationsInFlight<ChoiceCalibration>())
    /// Jobs sent back to the queue because the batch context ran out of cells or lost their state.
    private let sentBack = Atomic(0)

    package init(model: LoadedModel) {
        self.model = model
        self.queue = DispatchQueue(label: "FMEngine.\((model.llama.path as NSString).lastPathComponent)", qos: .userInitiated)
        self.loop = LoopState()
    }

    /// A job waiting for, or running in, the loop.
    private struct Request: Sendable {
        var id: Int
        var job: GenerationJob
        var progress: GenerationProgress?
        var resume: @Sendable (Result<GenerationOutcome, GenerationFailure>) -> Void
    }

    /// What callers hand to the loop.
    private struct Inbox: Sendable {
        var arrivals: [Request] = []
        var live: Set<Int> = []
        var cancelled: Set<Int> = []
        var isRunning = false
        var nextID = 0
    }

    // MARK: Jobs

    /// Runs `job` and returns the response. `progress` is called on the engine's thread each time the response
    /// grows. Cancelling the calling task stops the job at the next step.
    package func generate(_ job: GenerationJob, progress: GenerationProgress? = nil) async throws(GenerationFailure) -> GenerationOutcome {
        var job = job
        let levers = job.levers
        if job.recorder == nil, job.sampling.strategy == .greedy, levers.scoresChoices, levers.calibratesChoices, job.choicePoints != nil {
            let sample = levers.calibratesByBatch ? CalibrationSample.texts : []
            let fromJob = sample.count >= CalibrationSample.minimumCount
            let texts = fromJob ? sample
                : levers.calibratesByReference ? CalibrationSample.reference : ChoiceCalibration.contentFreeTexts
            // Bool choices take none of a prior read from other texts than the job's (``Generator/priorWeight``):
            // when they are the only choices, such a prior would be computed for nothing.
            let unused = !fromJob && levers.discountsBooleanPriors && job.choicePoints?.offersOnlyBooleans == true
            if !unused {
                job.calibration = await calibration(for: job, texts: texts, context: CalibrationSample.context)
                job.calibration?.isFromJobTexts = fromJob
            }
            // A request cancelled while it waited for the table ends now; the computation goes on for the others.
            if Task.isCancelled { throw .cancelled }
        }
        return try await run(job, progress: progress)
    }

    /// Runs a job through the loop as it is.
    private func run(_ job: GenerationJob, progress: GenerationProgress?) async throws(GenerationFailure) -> GenerationOutcome {
        let id = inbox.withLock { inbox in
            inbox.nextID += 1
            inbox.live.insert(inbox.nextID)
            return inbox.nextID
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<GenerationOutcome, GenerationFailure>, Never>) in
                submit(Request(id: id, job: job, progress: progress) { continuation.resume(returning: $0) })
            }
        } onCancel: {
            inbox.withLock { inbox in
                if inbox.live.contains(id) { inbox.cancelled.insert(id) }
            }
        }
        return try result.get()
    }

    /// Evaluates `text` into a context on the engine's thread, so a request that starts with it finds it
    /// cached; returns when the text is evaluated (or could not be).
    package func prefill(_ text: String) async {
        let id = inbox.withLock { inbox in
            inbox.nextID += 1
            inbox.live.insert(inbox.nextID)
            return inbox.nextID
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            submit(Request(id: id, job: .prefill(text), progress: nil) { _ in continuation.resume() })
        }
    }

    private func submit(_ request: Request) {
        let start = inbox.withLock { inbox in
            inbox.arrivals.append(request)
            defer { inbox.isRunning = true }
            return !inbox.isRunning
        }
        if start { queue.async { self.runLoop() } }
    }

    // MARK: Calibration

    /// The calibration table for a job: cached per model, constraint, instructions, calibration texts and context, else
    /// computed now by running the job on each of `texts` and recording every choice's scores, averaged as
    /// probabilities (real texts, ``ChoiceCalibration/add(_:averagingProbabilities:)``) or as log-probabilities
    /// (the content-free inputs).
    ///
    /// The calibration runs see the instructions (the leading system messages), then the turns `context` gives
    /// each calibration text (its own few-shot examples), then the text between what precedes and what follows the
    /// job's own text (``GenerationJob/promptPrefix`` and ``GenerationJob/promptSuffix``: the schema's description
    /// where it is placed in the user message). They do not see the job's turns: examples picked per text would
    /// otherwise make every text pay for the calibration runs again, and the cache would grow by one table per
    /// text. The context's key joins the table's key instead.
    ///
    /// The calibration runs are ordinary jobs of this engine, run one after another; requests that need the
    /// same table while it is computed wait for that one computation. A waiter that is cancelled stops waiting at
    /// once (and gets `nil`), while the computation goes on for the other waiters and for the cache; one that no
    /// request waits for any more goes on only while no other such one does (``ComputationsInFlight``). A run that
    /// fails leaves its text out. The table is cached and stored only if every failure would recur
    /// (``GenerationFailure/isTransient``); otherwise it serves the requests that waited for it, and the next
    /// request computes it again.
    func calibration(for job: GenerationJob, texts: [String], context: CalibrationSample.Context? = nil) async -> ChoiceCalibration? {
        guard let constraint = job.constraint, let last = job.messages.last, last.role == "user" else { return nil }
        let tableKey = Self.calibrationKey(for: job, texts: texts, context: context)
        if let cached = model.calibration(for: constraint, key: tableKey) { return cached }
        // Computations in flight are told apart by their constraint too; the constraint outlives them.
        let key = "\(ObjectIdentifier(constraint))\u{1D}" + tableKey
        let (id, task) = calibrating.withLock { computations in computations.join(key) { id in
            let progress = CalibrationSample.progress
            let store = CalibrationStore.current
            return Task { [self] in
                defer { calibrating.withLock { $0.finish(key, id: id) } }
                // A table an earlier process stored is read instead of computed (``CalibrationStore``). Its key
                // reads the model's and the executable's file attributes, so key and file are both read off the pool.
                let stored = store == nil ? nil : try? await Self.offload { [model, levers = job.levers] () -> (key: String, table: ChoiceCalibration?)? in
                    guard let store, let document = model.document(of: constraint) else { return nil }
                    let key = CalibrationStore.key(tableKey: tableKey, modelFiles: [model.llama.path] + (model.adapter.map { [$0.path] } ?? []),
                                                   schema: document, levers: levers)
                    return (key, store.table(forKey: key))
                }
                if let table = stored?.table {
                    model.storeCalibration(table, for: constraint, key: tableKey)
                    return table
                }
                var calibration = ChoiceCalibration()
                // The schema's own budget, the same for every job sharing the table: a model that never ends a
                // free string would otherwise write until the window is full, once per calibration text.
                // A compilation pushed out of the model's cache meanwhile still gets a bound.
                let budget = model.document(of: constraint)?.responseTokenBudget ?? job.maximumTokens ?? SchemaDocument.largestResponseBudget
                let averagesProbabilities = texts != ChoiceCalibration.contentFreeTexts
                var isComplete = true
                progress?.report(0, texts.count)
                for (done, text) in texts.enumerated() {
                    // Cancelled as an orphan (``ComputationsInFlight``): the runs left are not run, and whoever
                    // follows the computation is told that it ended.
                    if Task.isCancelled {
                        isComplete = false
                        // Its end, without a run it did not make: `(done, done)`, or `(n, n)` before any.
                        let end = done > 0 ? done : texts.count
                        progress?.report(end, end)
                        break
                    }
                    defer { progress?.report(done + 1, texts.count) }
                    var calibrationRun = job
                    calibrationRun.maximumTokens = budget
                    // The prior is the model's alone: the job's votes are mixed in after it is divided out.
                    calibrationRun.votes = nil
                    let turns = context?.turns(text) ?? []
                    let fixed = turns.prefix(min(context?.fixedCount ?? 0, turns.count))
                    var chosen = turns.dropFirst(fixed.count)
                    var recorder = CalibrationRecorder()
                    // A calibration run that fails (say, it hits the window) calibrates nothing. Example turns chosen
                    // for the text that leave it no room are halved, the earliest (least similar) going first, as
                    // a job's own text loses its examples (`Tagger`); fixed examples stay, as they do there.
                    do throws(GenerationFailure) {
                        while true {
                            calibrationRun.messages = job.calibrationMessages(for: text, turns: Array(fixed + chosen))
                            recorder = CalibrationRecorder()
                            calibrationRun.recorder = recorder
                            do throws(GenerationFailure) {
                                _ = try await run(calibrationRun, progress: nil)
                                break
                            } catch .promptOverflow where chosen.count >= 2 {
                                chosen = chosen.suffix(chosen.count / 4 * 2)
                            }
                        }
                    } catch {
                        if error.isTransient { isComplete = false }
                        continue
                    }
                    calibration.add(recorder.scores, averagingProbabilities: averagesProbabilities)
                }
                // A table that lacks a run which could succeed another time serves this job only: kept, a
                // passing failure would shape every later answer of the process, and stored, of later ones.
                guard isComplete else { return calibration }
                model.storeCalibration(calibration, for: constraint, key: tableKey)
                if let store, let key = stored?.key {
                    let table = calibration
                    try? await Self.offload { store.store(table, forKey: key) }
                }
                return calibration
            }
        } }
        return await Self.value(of: task) { [self] in
            calibrating.withLock { $0.leave(key, id: id) }?.cancel()
        }
    }

    /// Calibration tables being computed: how many, and how many of them no request waits for any more.
    package var calibrationsInFlight: (running: Int, orphaned: Int) {
        calibrating.withLock { ($0.entries.count, $0.orphaned) }
    }

    /// What tells a job's calibration tables apart for one constraint: the instructions, the calibration texts and
    /// the context that precedes each, where the text sits in the user message, and the levers that change what a
    /// run records (``QualityLevers/recordingFingerprint``), which a process may set differently per job.
    static func calibrationKey(for job: GenerationJob, texts: [String], context: CalibrationSample.Context?) -> String {
        let prefix = job.instructions.map { $0.role + "\u{1F}" + $0.content }.joined(separator: "\u{1E}")
        return prefix + "\u{1D}" + texts.joined(separator: "\u{1F}") + (context.map { "\u{1D}" + $0.key } ?? "")
            + "\u{1D}" + job.promptPrefix + "\u{1D}" + job.promptSuffix + "\u{1D}" + job.levers.recordingFingerprint
    }

    /// `task`'s value, or `nil` as soon as the calling task is cancelled, while `task` runs on; `stopped` is called
    /// once if the calling task is cancelled while it waits.
    private static func value<Value: Sendable>(of task: Task<Value, Never>, stopped: @escaping @Sendable () -> Void) async -> Value? {
        let waiter = Waiter<Value>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.continuation.withLock { $0 = continuation }
                Task { waiter.resume(returning: await task.value) }
                if Task.isCancelled { waiter.resume(returning: nil) }
            }
        } onCancel: {
            waiter.resume(returning: nil)
            stopped()
        }
    }

    /// A continuation resumed by whichever comes first: a value or a cancellation.
    private final class Waiter<Value: Sendable>: Sendable {
        let continuation = Mutex<CheckedContinuation<Value?, Never>?>(nil)

        func resume(returning value: Value?) {
            continuation.withLock { $0.take() }?.resume(returning: value)
        }
    }

    // MARK: Off-pool work

    /// The compiled constraint of a schema (cached per model), compiled off the cooperative pool.
    package func constraint(for document: SchemaDocument) async throws -> TokenConstraint {
        try await Self.offload { [model] in try model.constraint(for: document) }
    }

    /// Runs blocking work on a dispatch thread and resumes the caller with its result.
    package static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}

// MARK: - The loop

extension Engine {
    /// Where a running job's tokens live.
    private enum Placement {
        /// A context of the model's pool, sequence 0, spares `1...`.
        case lone(LlamaContext)
        /// A sequence of the batch context.
        case batch(Int)
    }

    /// A running job.
    private struct Slot {
        var request: Request
        var placement: Placement
        var decoder: SequenceDecoder
        var started: UInt64
        var prefilled: UInt64?
        var reportedBytes = 0
        /// The prompt's tokens, where drafts are looked up.
        var prompt: [Int32] = []
        /// Tokens proposed after the pending ones and evaluated with them, awaiting verification.
        var draft: [Int32] = []
    }

    /// State only the loop touches, on the engine's queue.
    private final class LoopState: @unchecked Sendable {
        // @unchecked: every member is read and written only by `runLoop`, which runs on the engine's serial queue.
        var batchContext: LlamaContext?
        /// When each batch sequence last held a job, for choosing which cache to overwrite.
        var lastUsed: [Int] = []
        var tick = 0
    }

    private var spareSequences: [Int] { Array(Self.batchSlots..<(Self.batchSlots + ChoicePoints.maximumCandidates)) }

    private func runLoop() {
        var waiting: [Request] = []
        var active: [Slot] = []
        var cancelled: Set<Int> = []
        // After a job was sent back for lack of cache cells, wait for a running job to finish before admitting more.
        var admissionPaused = false

        func finish(_ index: Int, _ result: Result<GenerationStop, GenerationFailure>) {
            let slot = active.remove(at: index)
            let outcome = result.map { stop in
                var outcome = slot.decoder.outcome
                outcome.stop = stop
                let now = DispatchTime.now().uptimeNanoseconds
                let prefilled = slot.prefilled ?? now
                outcome.prefillSeconds = Double(prefilled - slot.started) / 1e9
                outcome.decodeSeconds = Double(now - prefilled) / 1e9
                return outcome
            }
            if case .lone(let context) = slot.placement { model.returnContext(context) }
            complete(slot.request, outcome)
            admissionPaused = false
        }

        func complete(_ request: Request, _ result: Result<GenerationOutcome, GenerationFailure>) {
            inbox.withLock { inbox in
                inbox.live.remove(request.id)
                inbox.cancelled.remove(request.id)
            }
            cancelled.remove(request.id)
            request.resume(result)
        }

        while true {
            // Hand-over: new jobs and cancellations; stop when nothing is left (under the lock, so no job is missed).
            let proceed = inbox.withLock { inbox -> Bool in
                waiting += inbox.arrivals
                inbox.arrivals.removeAll()
                cancelled.formUnion(inbox.cancelled)
                if waiting.isEmpty && active.isEmpty {
                    inbox.isRunning = false
                    return false
                }
                return true
            }
            guard proceed else { break }

            if !cancelled.isEmpty {
                let dropped = waiting.filter { cancelled.contains($0.id) }
                waiting.removeAll { cancelled.contains($0.id) }
                for request in dropped { complete(request, .failure(.cancelled)) }
                var index = 0
                while index < active.count {
                    if cancelled.contains(active[index].request.id) { finish(index, .failure(.cancelled)) } else { index += 1 }
                }
            }

            if !admissionPaused { admit(&waiting, into: &active, complete: complete) }

            // Forced text and the limits, per job, before the shared evaluation.
            var index = 0
            while index < active.count {
                let cached = cachedCount(of: active[index])
                let result = Result { () throws(GenerationFailure) in try active[index].decoder.prepareStep(cached: cached) }
                if case .success(nil) = result {
                    index += 1
                } else {
                    finish(index, result.map { $0 ?? .finished })
                }
            }
            report(&active)
            guard !active.isEmpty else { continue }

            for (id, result) in evaluate(&active, waiting: &waiting, admissionPaused: &admissionPaused) {
                if let index = active.firstIndex(where: { $0.request.id == id }) { finish(index, result) }
            }
            guard !active.isEmpty else { continue }

            let (decided, room, restarting) = decide(&active)
            // A batch job that ends leaves its cells for the job that needs room to take, at its next step.
            let freed = decided.contains { id, _ in
                active.contains { if case .batch = $0.placement { $0.request.id == id } else { false } }
            }
            for (id, result) in decided {
                if let index = active.firstIndex(where: { $0.request.id == id }) { finish(index, result) }
            }
            if !restarting.isEmpty {
                sendBack(restarting.compactMap { id in active.firstIndex { $0.request.id == id } }, from: &active, to: &waiting,
                         admissionPaused: &admissionPaused)
            }
            if room, !freed { _ = sendYoungestBatchJobBack(&active, waiting: &waiting, admissionPaused: &admissionPaused) }
            report(&active)
        }
        if let context = loop.batchContext {
            model.returnBatchContext(context)
            loop.batchContext = nil
        }
    }

    private func cachedCount(of slot: Slot) -> Int {
        switch slot.placement {
        case .lone(let context): context.cachedTokens[0].count
        case .batch(let sequence): loop.batchContext!.cachedTokens[sequence].count
        }
    }

    private func report(_ active: inout [Slot]) {
        for index in active.indices {
            let reportable = active[index].decoder.reportableByteCount
            guard reportable > active[index].reportedBytes else { continue }
            let outcome = active[index].decoder.outcome
            active[index].reportedBytes = reportable
            let bytes = reportable == outcome.bytes.count ? outcome.bytes : Array(outcome.bytes[..<reportable])
            active[index].request.progress?(bytes, outcome.sampledTokens + outcome.forcedTokens)
        }
    }

    // MARK: Admission

    /// Renders and tokenizes waiting jobs and gives them a place: a lone context when nothing else is in flight,
    /// otherwise a sequence of the batch context.
    private func admit(_ waiting: inout [Request], into active: inout [Slot], complete: (Request, Result<GenerationOutcome, GenerationFailure>) -> Void) {
        var startedNow: [[Int32]] = []
        var deferred: [Request] = []
        while !waiting.isEmpty {
            let request = waiting.removeFirst()
            let tokens: [Int32]
            switch promptTokens(for: request.job) {
            case .failure(let failure):
                complete(request, .failure(failure))
                continue
            case .success(let value):
                tokens = value
            }
            let started = DispatchTime.now().uptimeNanoseconds
            let isAlone = active.isEmpty && waiting.isEmpty && deferred.isEmpty
            if isAlone {
                let context: LlamaContext
                do { context = try model.borrowContext(for: tokens) } catch {
                    complete(request, .failure(.runtime("\(error)")))
                    continue
                }
                context.truncate(sequence: 0, to: min(LoadedModel.commonPrefix(context.cachedTokens[0], tokens), tokens.count - 1))
                // What the cache kept: less than asked for when it cannot be cut back (a recurrent model's).
                let reuse = context.cachedTokens[0].count
                let decoder = SequenceDecoder(job: request.job, model: model, promptTokens: tokens.count, reusedTokens: reuse,
                                              pending: Array(tokens[reuse...]))
                active.append(Slot(request: request, placement: .lone(context), decoder: decoder, started: started, prompt: tokens))
                continue
            }
            let context: LlamaContext
            do { context = try batchContext() } catch {
                complete(request, .failure(.runtime("\(error)")))
                continue
            }
            let busy = Set(active.compactMap { if case .batch(let sequence) = $0.placement { sequence } else { nil } })
            let free = (0..<Self.batchSlots).filter { !busy.contains($0) }
            guard !free.isEmpty else {
                deferred.append(request)
                continue
            }
            // The free sequence that already holds most of the prompt; among equals, the least recently used.
            let sequence = free.max { a, b in
                let (ca, cb) = (LoadedModel.commonPrefix(context.cachedTokens[a], tokens), LoadedModel.commonPrefix(context.cachedTokens[b], tokens))
                return ca != cb ? ca < cb : loop.lastUsed[a] > loop.lastUsed[b]
            }!
            let donor = bestDonor(for: tokens, in: context, excluding: sequence)
            // A job whose prefix another job started in this same step is about to evaluate waits one step, so it
            // can copy those cells instead of computing them again.
            let pendingOverlap = startedNow.map { LoadedModel.commonPrefix($0, tokens) }.max() ?? 0
            if pendingOverlap > donor.length + 16 {
                deferred.append(request)
                continue
            }
            if donor.length > LoadedModel.commonPrefix(context.cachedTokens[sequence], tokens), let source = donor.sequence {
                context.copyPrefix(of: source, to: sequence, count: donor.length)
            }
            // The last prompt token is always evaluated, so the job has fresh logits.
            context.truncate(sequence: sequence, to: min(LoadedModel.commonPrefix(context.cachedTokens[sequence], tokens), tokens.count - 1))
            // What the cache kept: less than asked for when it cannot be cut back or copied in part (a recurrent model's).
            let reuse = context.cachedTokens[sequence].count
            loop.tick += 1
            loop.lastUsed[sequence] = loop.tick
            let decoder = SequenceDecoder(job: request.job, model: model, promptTokens: tokens.count, reusedTokens: reuse,
                                          pending: Array(tokens[reuse...]))
            active.append(Slot(request: request, placement: .batch(sequence), decoder: decoder, started: started))
            startedNow.append(tokens)
        }
        waiting = deferred + waiting
    }

    /// The rendered, tokenized prompt of a job, or why it cannot run.
    private func promptTokens(for job: GenerationJob) -> Result<[Int32], GenerationFailure> {
        let llama = model.llama
        let rendered = job.promptText ?? llama.renderChat(job.messages, addAssistantPrefix: true)
        if Generator.logsPrompts, !job.prefillOnly { try? FileHandle.standardError.write(contentsOf: Data("--- prompt\n\(rendered)\n".utf8)) }
        let tokens: [Int32]
        do { tokens = try llama.tokenize(rendered, addSpecial: llama.addsBeginningOfSequence) } catch {
            return .failure(.runtime(error.description))
        }
        guard !tokens.isEmpty else { return .failure(.runtime("The prompt is empty.")) }
        guard tokens.count < model.contextSize else {
            return .failure(.promptOverflow(tokenCount: tokens.count))
        }
        return .success(tokens)
    }

    private func batchContext() throws -> LlamaContext {
        if let context = loop.batchContext { return context }
        let context = try model.borrowBatchContext(sequences: Self.batchSlots + ChoicePoints.maximumCandidates)
        loop.batchContext = context
        if loop.lastUsed.count != context.sequenceCount { loop.lastUsed = Array(repeating: 0, count: context.sequenceCount) }
        return context
    }

    /// The sequence sharing the longest prefix with `prompt`, other than `target`.
    private func bestDonor(for prompt: [Int32], in context: LlamaContext, excluding target: Int) -> (sequence: Int?, length: Int) {
        var best: (sequence: Int?, length: Int) = (nil, 0)
        for sequence in 0..<Self.batchSlots where sequence != target {
            // Leave the last prompt token to be evaluated, so a full match still yields logits.
            let length = min(LoadedModel.commonPrefix(context.cachedTokens[sequence], prompt), prompt.count - 1)
            if length > best.length { best = (sequence, length) }
        }
        return best
    }

    // MARK: Evaluation

    /// Evaluates every job's pending tokens: one call per lone context and one for the batch context.
    ///
    /// When the batch context runs out of cells, jobs whose state the failed evaluation took with it (a recurrent
    /// model's cannot be cut back) go back to the queue; then the caches of idle sequences are dropped; then the
    /// most recently started job goes back to the queue (it restarts when cells are free), until the rest fit. A job
    /// alone that does not fit fails as it would at the end of the context window.
    ///
    /// - Returns: The jobs that ended, by request identifier.
    private func evaluate(
        _ active: inout [Slot], waiting: inout [Request], admissionPaused: inout Bool
    ) -> [(Int, Result<GenerationStop, GenerationFailure>)] {
        var ended: [(Int, Result<GenerationStop, GenerationFailure>)] = []
        for index in active.indices {
            guard case .lone(let context) = active[index].placement else { continue }
            do {
                // A long prompt is evaluated a chunk per step (the chunks one evaluation of it would make), so
                // its prefill neither holds up the other jobs' steps nor a cancellation for its whole length.
                if active[index].decoder.pending.count > context.batchSize {
                    try context.evaluate(Array(active[index].decoder.pending.prefix(context.batchSize)))
                    active[index].decoder.pending.removeFirst(context.batchSize)
                    continue
                }
                let draft = draft(for: active[index], in: context)
                if draft.isEmpty {
                    if let allowed = allowedNext(active[index]) { context.restrictNextLogits(sequence: 0, to: allowed) }
                    try context.evaluate(active[index].decoder.pending)
                    if !context.hasFullLogits(sequence: 0) { active[index].decoder.outcome.restrictedSteps += 1 }
                } else {
                    // Verifying reads the row before the draft and the row after each of its tokens.
                    if let first = allowedNext(active[index]), let rest = active[index].decoder.allowedWords(after: draft) {
                        context.restrictNextLogits(sequence: 0, rows: [first] + rest)
                    }
                    try context.evaluate(active[index].decoder.pending + draft, sequence: 0, outputs: draft.count + 1)
                    if !context.hasFullLogits(sequence: 0) { active[index].decoder.outcome.restrictedSteps += 1 }
                }
                active[index].draft = draft
                markEvaluated(&active[index])
            } catch {
                ended.append((active[index].request.id, .failure(error.code == .contextFull
                    ? .contextOverflow("The conversation reached the context window of \(model.contextSize) tokens.")
                    : .runtime(error.description))))
            }
        }
        guard let context = loop.batchContext else { return ended }
        while true {
            let batched = active.indices.filter { if case .batch = active[$0].placement { true } else { false } }
            guard !batched.isEmpty else { return ended }
            let items = batched.map { index -> (sequence: Int, tokens: [Int32]) in
                guard case .batch(let sequence) = active[index].placement else { preconditionFailure("a batch slot") }
                let pending = active[index].decoder.pending
                // A long prompt a chunk per step, as in a lone context.
                if pending.count > context.batchSize { return (sequence, Array(pending.prefix(context.batchSize))) }
                if let allowed = allowedNext(active[index]) { context.restrictNextLogits(sequence: sequence, to: allowed) }
                return (sequence, pending)
            }
            let cachedBefore = items.map { context.cachedTokens[$0.sequence].count }
            do {
                try context.evaluate(items)
                for index in batched {
                    if active[index].decoder.pending.count > context.batchSize {
                        active[index].decoder.pending.removeFirst(context.batchSize)
                        continue
                    }
                    if case .batch(let sequence) = active[index].placement, !context.hasFullLogits(sequence: sequence) {
                        active[index].decoder.outcome.restrictedSteps += 1
                    }
                    markEvaluated(&active[index])
                }
                return ended
            } catch where error.code == .contextFull {
                // A running state that cannot be cut back (a recurrent or hybrid model's) is lost with an evaluation
                // that failed after an earlier chunk had gone in: its jobs start over when a running job finishes.
                let lost = zip(batched, zip(items, cachedBefore)).filter { context.cachedTokens[$1.0.sequence].count < $1.1 }.map(\.0)
                if !lost.isEmpty {
                    sendBack(lost, from: &active, to: &waiting, admissionPaused: &admissionPaused)
                    continue
                }
                if dropIdleCaches(in: context, active: active) { continue }
                if sendYoungestBatchJobBack(&active, waiting: &waiting, admissionPaused: &admissionPaused) { continue }
                ended.append((active[batched[0]].request.id, .failure(.contextOverflow(
                    "The batch context ran out of space (\(context.contextLength) tokens) for a response."))))
                return ended
            } catch {
                return ended + batched.map { (active[$0].request.id, .failure(.runtime(error.description))) }
            }
        }
    }

    /// The tokens whose logits a job's next decision reads, when that is fewer than the whole vocabulary: the
    /// grammar's mask before a sampled token, nothing after a prefill. `nil` (every logit) for unconstrained
    /// text and whole-value choices, whose scores are normalised over the whole vocabulary.
    private func allowedNext(_ slot: Slot) -> [UInt64]? {
        let job = slot.request.job
        // Restricted logits may need rows evaluated again, which a cache that cannot be cut back does not allow.
        guard job.levers.restrictsLogits, model.llama.keepsPartialSequences else { return nil }
        if job.prefillOnly { return [] }
        guard slot.draft.isEmpty, !isChoosing(slot) else { return nil }
        return slot.decoder.nextAllowedWords()
    }

    /// Whether a job's next decision is a whole-value choice scored over the model's full preference.
    private func isChoosing(_ slot: Slot) -> Bool {
        let job = slot.request.job
        guard job.sampling.strategy == .greedy, job.levers.scoresChoices, let points = job.choicePoints, slot.decoder.matcher != nil
        else { return false }
        return points.remainders(after: slot.decoder.outcome.bytes) != nil
    }

    /// The tokens to propose after a lone job's pending ones (``SequenceDecoder/draft(from:maximum:choicePoints:)``),
    /// or none: drafting is for greedy jobs between whole-value choices, within the token limit and the window.
    private func draft(for slot: Slot, in context: LlamaContext) -> [Int32] {
        let job = slot.request.job
        let decoder = slot.decoder
        // A rejected draft is cut from the cache, which a recurrent model's cannot be.
        guard job.levers.draftsFromPrompt, model.llama.keepsPartialSequences, job.sampling.strategy == .greedy, !job.prefillOnly, !job.recordsMargins,
              job.stopSequences.isEmpty, !decoder.pending.isEmpty, job.choicePoints?.remainders(after: decoder.outcome.bytes) == nil
        else { return [] }
        var room = min(SequenceDecoder.maximumDraftLength, context.batchSize - decoder.pending.count,
                       model.contextSize - 1 - context.cachedTokens[0].count - decoder.pending.count)
        if let limit = job.maximumTokens {
            room = min(room, limit - decoder.outcome.sampledTokens - decoder.outcome.forcedTokens - 1)
        }
        return decoder.draft(from: slot.prompt, maximum: room, choicePoints: job.choicePoints)
    }

    /// Verifies a lone job's draft against the logits after each of its tokens: drafted tokens are kept while
    /// they are what the job would have picked, then the job's own pick follows, as in single steps.
    ///
    /// - Returns: `true` when the job's turn ended.
    private func verifyDraft(of slot: inout Slot, in context: LlamaContext) throws(GenerationFailure) -> Bool {
        let draft = slot.draft
        slot.draft = []
        var row = 0
        while true {
            let token = context.withLogits(sequence: 0, row: row) { slot.decoder.pickToken(from: $0) }
            if row < draft.count, token == draft[row] {
                _ = try slot.decoder.accept(token, evaluated: true)
                slot.decoder.outcome.draftedTokens += 1
                row += 1
                continue
            }
            // The drafted tokens after this point are not part of the response.
            context.truncate(sequence: 0, to: context.cachedTokens[0].count - (draft.count - row))
            return try slot.decoder.accept(token)
        }
    }

    private func markEvaluated(_ slot: inout Slot) {
        slot.decoder.pending.removeAll(keepingCapacity: true)
        if slot.prefilled == nil { slot.prefilled = DispatchTime.now().uptimeNanoseconds }
    }

    /// Sends the most recently started batch job back to the queue, its sequence emptied, to start over when a
    /// running job has finished; `false` when fewer than two jobs share the batch context (a job alone that does not
    /// fit has reached the end of its window). One that has streamed nothing yet restarts unseen, so it goes first;
    /// a restarted stream sends nothing until its new text passes what it had sent.
    private func sendYoungestBatchJobBack(_ active: inout [Slot], waiting: inout [Request], admissionPaused: inout Bool) -> Bool {
        let batched = active.indices.filter { if case .batch = active[$0].placement { true } else { false } }
        let unseen = batched.filter { active[$0].reportedBytes == 0 }
        guard batched.count > 1, let youngest = (unseen.isEmpty ? batched : unseen).max(by: { active[$0].started < active[$1].started })
        else { return false }
        sendBack([youngest], from: &active, to: &waiting, admissionPaused: &admissionPaused)
        return true
    }

    /// Sends the batch jobs at `indices` back to the front of the queue, in their order, their sequences emptied;
    /// admission then waits for a batch job to finish, if one is left to.
    private func sendBack(_ indices: [Int], from active: inout [Slot], to waiting: inout [Request], admissionPaused: inout Bool) {
        for index in indices.sorted(by: >) {
            let slot = active.remove(at: index)
            if case .batch(let sequence) = slot.placement { loop.batchContext?.truncate(sequence: sequence, to: 0) }
            waiting.insert(slot.request, at: 0)
            sentBack.add(1, ordering: .relaxed)
        }
        // A job in a lone context may run for long; it frees no batch cells.
        admissionPaused = active.contains { if case .batch = $0.placement { true } else { false } }
    }

    /// Jobs sent back to the queue so far because the batch context ran out of cells or lost their state (each
    /// started over later).
    package var jobsSentBack: Int { sentBack.load(ordering: .relaxed) }

    /// Empties the batch sequences no job is using; `false` when there were none with tokens.
    private func dropIdleCaches(in context: LlamaContext, active: [Slot]) -> Bool {
        let busy = Set(active.compactMap { if case .batch(let sequence) = $0.placement { sequence } else { nil } })
        var dropped = false
        for sequence in 0..<Self.batchSlots where !busy.contains(sequence) && !context.cachedTokens[sequence].isEmpty {
            context.truncate(sequence: sequence, to: 0)
            dropped = true
        }
        return dropped
    }

    // MARK: Decisions

    /// Each job's next token (or whole value, at a choice point) from its fresh logits.
    ///
    /// Choice scoring decodes the candidates in spare sequences, which overwrites llama.cpp's output buffer:
    /// the other jobs decide first, and jobs of the same context that also score keep a copy of their logits.
    ///
    /// - Returns: The jobs that ended, by request identifier; whether a batch job that had no room to score its
    ///   choices waits for another to make room (the most recently started starts over, unless a batch job ended
    ///   in this step: ``sendYoungestBatchJobBack(_:waiting:admissionPaused:)``); and the jobs that start over
    ///   themselves, since their state cannot go back one token to choose again (a recurrent model's).
    private func decide(_ active: inout [Slot]) -> (ended: [(Int, Result<GenerationStop, GenerationFailure>)], room: Bool, restarting: [Int]) {
        var choosing: [Int] = []
        var room = false
        var restarting: [Int] = []
        // A job whose prompt is still being evaluated in chunks has nothing to decide yet.
        let ready = active.indices.filter { active[$0].decoder.pending.isEmpty }
        for index in ready where !active[index].request.job.prefillOnly && isChoosing(active[index]) {
            choosing.append(index)
        }
        if choosing.count > 1 {
            for index in choosing { if case .batch(let sequence) = active[index].placement { loop.batchContext!.preserveLogits(sequence: sequence) } }
        }
        var results: [Int: Result<Bool, GenerationFailure>] = [:]
        for index in ready.filter({ !choosing.contains($0) }) + choosing {
            if active[index].request.job.prefillOnly {
                results[index] = .success(true)
                continue
            }
            let (context, sequence, spares) = location(of: active[index])
            if !active[index].draft.isEmpty {
                results[index] = Result { () throws(GenerationFailure) in try verifyDraft(of: &active[index], in: context) }
                continue
            }
            if choosing.contains(index), let points = active[index].request.job.choicePoints, var matcher = active[index].decoder.matcher {
                do {
                    let job = active[index].request.job
                    let bytes = active[index].decoder.outcome.bytes.count
                    var chosenMargin: Double?
                    if let tokens = try Generator(model: model).choose(
                        points, output: active[index].decoder.outcome.bytes, matcher: &matcher, context: context,
                        calibration: job.calibration, recorder: job.recorder, levers: job.levers, sequence: sequence, spares: spares,
                        text: job.messages.last.flatMap { $0.role == "user" ? $0.content : nil }, votes: job.votes,
                        margin: job.recordsMargins ? { chosenMargin = $0 } : nil) {
                        if let chosenMargin { active[index].decoder.outcome.margins.append((bytes, chosenMargin)) }
                        active[index].decoder.acceptChosen(tokens, matcher: matcher)
                        results[index] = .success(false)
                        continue
                    }
                } catch {
                    // The batch cache had no room for the candidates. Idle sequences' caches are kept until room
                    // runs out: drop them, or else have another batch job start over later, as when a step's tokens
                    // do not fit. The job evaluates its last token again for fresh logits (scoring used them up) and
                    // chooses on its next step. Only a job alone in the batch has truly reached its window's end.
                    if case .contextOverflow = error, case .batch = active[index].placement {
                        let dropped = dropIdleCaches(in: context, active: active)
                        let others = active.contains { if case .batch(let other) = $0.placement { other != sequence } else { false } }
                        if model.llama.keepsPartialSequences, dropped || others, let last = context.cachedTokens[sequence].last {
                            room = room || !dropped
                            context.truncate(sequence: sequence, to: context.cachedTokens[sequence].count - 1)
                            active[index].decoder.pending = [last]
                            continue
                        }
                        // A running state cannot go back one token for fresh logits: the job itself starts over.
                        if !model.llama.keepsPartialSequences, dropped || others {
                            restarting.append(active[index].request.id)
                            continue
                        }
                    }
                    results[index] = .failure(error)
                    continue
                }
            }
            let token = context.withLogits(sequence: sequence) { logits in
                let token = active[index].decoder.pickToken(from: logits)
                if active[index].request.job.recordsMargins, active[index].request.job.sampling.strategy == .greedy, let token,
                   let margin = active[index].decoder.margin(of: token, in: logits) {
                    active[index].decoder.outcome.margins.append((active[index].decoder.outcome.bytes.count, margin))
                }
                return token
            }
            results[index] = Result { () throws(GenerationFailure) in try active[index].decoder.accept(token) }
        }
        let ended: [(Int, Result<GenerationStop, GenerationFailure>)] = active.indices.compactMap { index in
            switch results[index] {
            case .success(true)?: (active[index].request.id, .success(.finished))
            case .failure(let failure)?: (active[index].request.id, .failure(failure))
            default: nil
            }
        }
        return (ended, room, restarting)
    }

    private func location(of slot: Slot) -> (LlamaContext, Int, [Int]) {
        switch slot.placement {
        case .lone(let context): (context, 0, Array(1..<context.sequenceCount))
        case .batch(let sequence): (loop.batchContext!, sequence, spareSequences)
        }
    }
}

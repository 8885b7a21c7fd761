import FMDecoding
import FMLlama
import Foundation

/// Runs many independent model turns together: up to `slots` sequences share one context and every step
/// evaluates all of their pending tokens in one `llama_decode` call.
///
/// A small model on a CPU decodes one token barely faster than several in one batch, so batching turns the
/// idle width of each forward pass into throughput. Slots are refilled as soon as a job finishes (continuous
/// batching), and a new job copies the longest matching prefix of any sequence in the context — the shared
/// instructions of a tagging run are evaluated once, not once per slot.
///
/// Each job follows exactly the rules of ``Generator``: the same forced text, masks, sampling and errors.
struct BatchGenerator {
    let model: LoadedModel
    let slots: Int

    /// Runs `jobs` on a dedicated thread; results come back in job order. Cancelling the caller stops every job.
    static func run(_ jobs: [GenerationJob], slots: Int, on model: LoadedModel) async -> [Result<GenerationOutcome, GenerationFailure>] {
        let flag = CancellationFlag()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Result<GenerationOutcome, GenerationFailure>], Never>) in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(returning: BatchGenerator(model: model, slots: max(1, slots)).generate(jobs, isCancelled: { flag.isSet }))
                }
            }
        } onCancel: {
            flag.set()
        }
    }

    /// One sequence's job in progress.
    private struct Slot {
        var job: Int
        var sequence: Int
        var decoder: SequenceDecoder
        var started: UInt64
        var prefilled: UInt64?
    }

    func generate(_ jobs: [GenerationJob], isCancelled: () -> Bool) -> [Result<GenerationOutcome, GenerationFailure>] {
        var results = [Result<GenerationOutcome, GenerationFailure>?](repeating: nil, count: jobs.count)
        // Render and tokenize every prompt first: overflowing prompts fail alone, before any batch work.
        var prompts: [Int: [Int32]] = [:]
        for (index, job) in jobs.enumerated() {
            let rendered = model.llama.renderChat(job.messages, addAssistantPrefix: true)
            do {
                let tokens = try model.llama.tokenize(rendered, addSpecial: model.llama.addsBeginningOfSequence)
                if tokens.count >= model.contextSize {
                    results[index] = .failure(.contextOverflow(
                        "The prompt needs \(tokens.count) tokens; the context window holds \(model.contextSize)."))
                } else {
                    prompts[index] = tokens
                }
            } catch {
                results[index] = .failure(.runtime(error.description))
            }
        }
        var queue = jobs.indices.filter { prompts[$0] != nil }[...]
        guard !queue.isEmpty else { return results.map { $0! } }

        let context: LlamaContext
        do { context = try model.borrowBatchContext(sequences: slots) } catch {
            return results.map { $0 ?? .failure(.runtime("\(error)")) }
        }
        defer { model.returnBatchContext(context) }
        let sequences = min(slots, context.sequenceCount)
        var active: [Slot] = []
        var free = Array((0..<sequences).reversed())

        func finish(_ slot: Slot, _ result: Result<GenerationStop, GenerationFailure>) {
            results[slot.job] = result.map { stop in
                var outcome = slot.decoder.outcome
                outcome.stop = stop
                let now = DispatchTime.now().uptimeNanoseconds
                let prefilled = slot.prefilled ?? now
                outcome.prefillSeconds = Double(prefilled - slot.started) / 1e9
                outcome.decodeSeconds = Double(now - prefilled) / 1e9
                return outcome
            }
            free.append(slot.sequence)
        }

        while !queue.isEmpty || !active.isEmpty {
            if isCancelled() {
                for slot in active { results[slot.job] = .failure(.cancelled) }
                for job in queue { results[job] = .failure(.cancelled) }
                break
            }
            // Fill free sequences. A job whose prefix another job started in this same step is about to
            // evaluate waits one step, so it can copy those cells instead of computing them again.
            var startedNow: [[Int32]] = []
            var deferred: [Int] = []
            while let sequence = free.last, let job = queue.first {
                queue.removeFirst()
                let prompt = prompts[job]!
                let donor = bestDonor(for: prompt, in: context, excluding: sequence)
                let pendingOverlap = startedNow.map { LoadedModel.commonPrefix($0, prompt) }.max() ?? 0
                if pendingOverlap > donor.length + 16 {
                    deferred.append(job)
                    continue
                }
                free.removeLast()
                var reuse = LoadedModel.commonPrefix(context.cachedTokens[sequence], prompt)
                if donor.length > reuse, let source = donor.sequence {
                    context.copyPrefix(of: source, to: sequence, count: donor.length)
                    reuse = donor.length
                } else {
                    context.truncate(sequence: sequence, to: reuse)
                }
                // The last prompt token is always evaluated, so the slot has fresh logits.
                if reuse == prompt.count {
                    reuse -= 1
                    context.truncate(sequence: sequence, to: reuse)
                }
                let decoder = SequenceDecoder(job: jobs[job], model: model, promptTokens: prompt.count, reusedTokens: reuse,
                                              pending: Array(prompt[reuse...]))
                active.append(Slot(job: job, sequence: sequence, decoder: decoder, started: DispatchTime.now().uptimeNanoseconds))
                startedNow.append(prompt)
            }
            queue = deferred + queue

            // Forced text and the limits, per slot, before the shared evaluation.
            var index = 0
            while index < active.count {
                let cached = context.cachedTokens[active[index].sequence].count
                let result = Result { () throws(GenerationFailure) in try active[index].decoder.prepareStep(cached: cached) }
                if case .success(nil) = result {
                    index += 1
                } else {
                    finish(active.remove(at: index), result.map { $0 ?? .finished })
                }
            }
            guard !active.isEmpty else { continue }

            do {
                try context.evaluate(active.map { (sequence: $0.sequence, tokens: $0.decoder.pending) })
            } catch {
                // A full batch context: the jobs in flight fail as they would have alone at the window's end.
                let failure: GenerationFailure = error.code == .contextFull
                    ? .contextOverflow("The batch ran out of context space (\(context.contextLength) tokens shared by \(sequences) sequences).")
                    : .runtime(error.description)
                for slot in active { finish(slot, .failure(failure)) }
                active.removeAll()
                continue
            }
            let now = DispatchTime.now().uptimeNanoseconds
            index = 0
            while index < active.count {
                active[index].decoder.pending.removeAll(keepingCapacity: true)
                if active[index].prefilled == nil { active[index].prefilled = now }
                let token = context.withLogits(sequence: active[index].sequence) { active[index].decoder.pickToken(from: $0) }
                let result = Result { () throws(GenerationFailure) in try active[index].decoder.accept(token) }
                if case .success(false) = result {
                    index += 1
                } else {
                    finish(active.remove(at: index), result.map { _ in .finished })
                }
            }
        }
        return results.map { $0 ?? .failure(.cancelled) }
    }

    /// The sequence sharing the longest prefix with `prompt`, other than `target`.
    private func bestDonor(for prompt: [Int32], in context: LlamaContext, excluding target: Int) -> (sequence: Int?, length: Int) {
        var best: (sequence: Int?, length: Int) = (nil, 0)
        for sequence in 0..<context.sequenceCount where sequence != target {
            // Leave the last prompt token to be evaluated, so a full match still yields logits.
            let length = min(LoadedModel.commonPrefix(context.cachedTokens[sequence], prompt), prompt.count - 1)
            if length > best.length { best = (sequence, length) }
        }
        return best
    }
}

import FMLlama
import Foundation
import FoundationModels
import Synchronization
import Testing

/// One thread budget per process: two models answering at the same time take turns on the cores instead of
/// each putting every thread on them at once.
@Suite(.serialized) struct ThreadBudgetTests {
    @Test func twoModelsAnsweringAtOnceNeverEvaluateAtTheSameMoment() async throws {
        _ = DefaultModel.model
        // A second path to the same weights is a second model to the registry: its own engine and loop.
        let directory = FileManager.default.temporaryDirectory.appending(path: "fm-thread-budget-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let second = directory.appending(path: "second.gguf")
        try FileManager.default.linkItem(at: SystemLanguageModel.defaultModelURL, to: second)

        let models = [SystemLanguageModel.default, SystemLanguageModel(modelURL: second)]
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for model in models {
                group.addTask {
                    let session = LanguageModelSession(model: model)
                    let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 48)
                    return try await session.respond(to: "Write three sentences about rivers.", options: options).content
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 2 && answers.allSatisfy { !$0.isEmpty })
        #expect(LlamaComputeGate.peakConcurrentEvaluations == 1)
        #expect(LlamaThreads.processDefault >= 1)
    }

    /// Another process holding every core (here, one spinning thread per core in the test process) makes `fm`
    /// give up threads instead of spinning at barriers for a thread that is off the CPU, and the job still
    /// answers every record.
    @Test(.enabled(if: ProcessInfo.processInfo.activeProcessorCount > 1))
    func anFMJobGivesUpThreadsWhileOtherWorkHoldsTheCores() throws {
        let model = DefaultModel.model
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let directory = FileManager.default.temporaryDirectory.appending(path: "fm-busy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appending(path: "in.txt")
        let texts = (0..<6).map { "Notes from meeting number \($0) about the garden budget." }
        try Data((texts.joined(separator: "\n") + "\n").utf8).write(to: input)

        let stop = StopFlag()
        for _ in 0..<cores {
            Thread {
                var counter = 0
                while !stop.isSet { counter &+= 1 }
                _ = counter
            }.start()
        }
        defer { stop.set() }
        let run = try CommandRun.run(
            CommandRun.executable("fm"), ["tag", "--file", input.path, "--no-cache"],
            environment: ["FM_MODEL_PATH": model.modelURL.path, "FM_LOG_THREADS": "1", "FM_THREADS": ""])
        stop.set()

        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == texts.count)
        #expect(lines.allSatisfy { $0.contains("\"topics\"") && !$0.contains("\"error\"") }, "\(run.stdout)")
        // Down from every thread: by one after contended windows, or, when the cores were already busy while the
        // model loaded, to the room there was before the first evaluation.
        #expect(run.stderr.contains(" of \(cores) threads (was \(cores)): "), "\(run.stderr)")
    }
}

/// A flag the burner threads poll.
private final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}

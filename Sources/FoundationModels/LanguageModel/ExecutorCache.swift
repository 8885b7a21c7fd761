import Synchronization

/// One executor per executor type and configuration, for the whole process.
final class ExecutorCache: Sendable {
    static let shared = ExecutorCache()

    /// An executor type with one of its configurations.
    private struct Key: Hashable, @unchecked Sendable {
        // @unchecked: `configuration` wraps a `Sendable` value (``LanguageModelExecutor/Configuration`` is
        // `Sendable`); `AnyHashable` only hides that from the compiler.
        let type: ObjectIdentifier
        let configuration: AnyHashable
    }

    private let executors = Mutex<[Key: any Sendable]>([:])

    /// The executor for `model`'s configuration, created on first use.
    ///
    /// - Throws: What the executor's initializer throws.
    func executor<Model: LanguageModel>(for model: Model) throws -> Model.Executor {
        let key = Key(type: ObjectIdentifier(Model.Executor.self), configuration: AnyHashable(model.executorConfiguration))
        if let executor = executors.withLock({ $0[key] }) as? Model.Executor { return executor }
        let executor = try Model.Executor(configuration: model.executorConfiguration)
        return executors.withLock { executors in
            if let existing = executors[key] as? Model.Executor { return existing }
            executors[key] = executor
            return executor
        }
    }
}

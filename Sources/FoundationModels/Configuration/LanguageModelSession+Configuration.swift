import Foundation

extension LanguageModelSession {
    /// Starts a session whose instructions and tools are worked out again for every request.
    ///
    /// ```swift
    /// let session = LanguageModelSession(dynamicInstructions: TravelAgent())
    /// session.properties.isPremiumUser = true     // the next request's instructions change
    /// ```
    ///
    /// - Parameters:
    ///   - model: The model to use.
    ///   - dynamicInstructions: The instructions and tools; also ``SessionPropertyValues/rootDynamicInstructions``.
    ///   - history: Entries to continue from (without instructions: those come from `dynamicInstructions`).
    public convenience init(
        model: some LanguageModel = SystemLanguageModel.default,
        dynamicInstructions: sending some DynamicInstructions,
        history: some Collection<Transcript.Entry> = []
    ) {
        self.init(backend: ModelBackend(model), tools: [], initialTranscript: Transcript(entries: history), usesCurrentErrors: true,
                  dynamicSetup: DynamicSetup(profile: nil))
        sessionProperties.rootDynamicInstructions = dynamicInstructions
    }

    /// Starts a session from a profile: instructions, tools, model, options and hooks, worked out again for
    /// every request from the session's properties.
    ///
    /// - Parameters:
    ///   - profile: The profile.
    ///   - history: Entries to continue from (without instructions: those come from the profile).
    public convenience init(profile: sending some DynamicProfile, history: some Collection<Transcript.Entry> = []) {
        self.init(backend: ModelBackend(SystemLanguageModel.default), tools: [], initialTranscript: Transcript(entries: history),
                  usesCurrentErrors: true, dynamicSetup: DynamicSetup(profile: profile))
    }

    /// The values the session's dynamic instructions, profile and tools share.
    public var properties: SessionPropertyValues { sessionProperties }

    /// Replaces the transcript's history (what ``SessionPropertyValues/history`` writes).
    func replaceHistory(with history: ArraySlice<Transcript.Entry>) {
        mutate([\LanguageModelSession.transcript]) { state in
            state.transcript.history = history
            if state.isResponding { state.historyChangedWhileResponding = true }
        }
    }

    /// What a request runs with: the model, the tools and, for a dynamic session, the resolved profile.
    struct Setup {
        var backend: ModelBackend
        var tools: [any Tool]
        var profile: ResolvedProfile?
    }

    /// Works out the setup for the next request. For a dynamic session this reads the session's properties,
    /// writes the resolved instructions into the transcript's leading instructions entry, and runs the
    /// activation hooks of profiles that became (in)active.
    func currentSetup() async -> Setup {
        guard let dynamicSetup else { return Setup(backend: backend, tools: tools, profile: nil) }
        var resolved = ResolvedProfile()
        SessionPropertyValues.$current.withValue(sessionProperties) {
            if let profile = dynamicSetup.profile {
                profile.resolve(into: &resolved)
            } else {
                sessionProperties.rootDynamicInstructions.resolve(into: &resolved.instructions)
            }
        }
        let instructions = resolved.instructions
        mutate([\LanguageModelSession.transcript]) { state in
            if case .instructions(let existing)? = state.transcript.first {
                state.transcript[state.transcript.startIndex] = .instructions(instructions.entry(id: existing.id))
            } else if !instructions.segments.isEmpty || !instructions.tools.isEmpty {
                state.transcript.insert(.instructions(instructions.entry(id: UUID().uuidString)), at: 0)
            }
        }
        // The hooks read and write the session's properties, as the profile's body does.
        let actions = dynamicSetup.activationChanges(activating: resolved.onActivate, deactivating: resolved.onDeactivate)
        await SessionPropertyValues.$current.withValue(sessionProperties) {
            for action in actions { await action() }
        }
        return Setup(backend: resolved.model ?? backend, tools: instructions.tools, profile: resolved)
    }
}

/// The dynamic part of a session: its profile (or, without one, the root dynamic instructions in its
/// properties) and which profiles' activation hooks have run.
final class DynamicSetup: @unchecked Sendable {
    // @unchecked: `profile` is set once, handed over with `sending` by the initializer, and only resolved by
    // the session's requests, one at a time; the activation state is only touched under `lock`.
    let profile: (any LanguageModelSession.DynamicProfile)?
    private let lock = NSLock()
    private var active: Set<String> = []
    private var deactivations: [String: @isolated(any) () async -> Void] = [:]

    init(profile: (any LanguageModelSession.DynamicProfile)?) {
        self.profile = profile
    }

    /// The hooks to run now: deactivation of profiles no longer in effect, activation of ones newly in effect.
    func activationChanges(
        activating: [(key: String, action: @isolated(any) () async -> Void)],
        deactivating: [(key: String, action: @isolated(any) () async -> Void)]
    ) -> [@isolated(any) () async -> Void] {
        lock.lock()
        defer { lock.unlock() }
        let now = Set(activating.map(\.key) + deactivating.map(\.key))
        let before = active
        active = now
        let ended = deactivations.filter { !now.contains($0.key) }.map(\.value)
        deactivations = deactivations.filter { now.contains($0.key) }
        for (key, action) in deactivating { deactivations[key] = action }
        return ended + activating.filter { !before.contains($0.key) }.map(\.action)
    }
}

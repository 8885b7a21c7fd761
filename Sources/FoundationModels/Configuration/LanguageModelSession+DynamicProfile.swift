extension LanguageModelSession {
    /// A session's whole setup — instructions, tools, model, options and hooks — that the session works out
    /// again for every request from its current ``SessionPropertyValues``.
    ///
    /// ```swift
    /// struct Concierge: LanguageModelSession.DynamicProfile {
    ///     @SessionProperty(\.isPremiumUser) var isPremium
    ///
    ///     var body: some DynamicProfile {
    ///         if isPremium {
    ///             Profile { Instructions("You are a premium concierge."); LoungeFinder() }
    ///                 .temperature(0.3)
    ///         } else {
    ///             Profile { Instructions("You are a helpful concierge.") }
    ///         }
    ///     }
    /// }
    /// let session = LanguageModelSession(profile: Concierge())
    /// ```
    public protocol DynamicProfile {
        /// The type of the profile's body.
        associatedtype Body: LanguageModelSession.DynamicProfile
        /// The profile this one stands for.
        @DynamicProfileBuilder var body: Self.Body { get }
    }

    /// A profile made of dynamic instructions (and the tools among them).
    public struct Profile: DynamicProfile {
        let instructions: AnyDynamicInstructions

        /// A profile with the given instructions and tools.
        public init(@DynamicInstructionsBuilder _ dynamicInstructions: () -> some DynamicInstructions) {
            instructions = AnyDynamicInstructions(erasing: dynamicInstructions())
        }

        /// A primitive has no body.
        public var body: Never { fatalError("Profile has no body.") }
    }

    /// One of two profiles, chosen by an `if`/`else` or `switch`.
    public struct ConditionalDynamicProfile<TrueContent: DynamicProfile, FalseContent: DynamicProfile>: DynamicProfile {
        @usableFromInline
        enum Branch {
            case trueContent(TrueContent)
            case falseContent(FalseContent)
        }

        @usableFromInline
        var branch: Branch

        @usableFromInline
        init(_ branch: Branch) {
            self.branch = branch
        }

        /// A primitive has no body.
        public var body: Never { fatalError("ConditionalDynamicProfile has no body.") }
    }

    /// A result builder that picks a profile, with `if`/`else` and `switch`.
    @resultBuilder
    public struct DynamicProfileBuilder {
        /// A block with one profile.
        public static func buildBlock<T: DynamicProfile>(_ content: T) -> T {
            content
        }

        /// The first branch of an `if`/`else` or `switch`.
        public static func buildEither<TrueContent: DynamicProfile, FalseContent: DynamicProfile>(
            first content: TrueContent
        ) -> ConditionalDynamicProfile<TrueContent, FalseContent> {
            ConditionalDynamicProfile(.trueContent(content))
        }

        /// The second branch of an `if`/`else` or `switch`.
        public static func buildEither<TrueContent: DynamicProfile, FalseContent: DynamicProfile>(
            second content: FalseContent
        ) -> ConditionalDynamicProfile<TrueContent, FalseContent> {
            ConditionalDynamicProfile(.falseContent(content))
        }
    }

    /// A reusable change to a profile.
    ///
    /// ```swift
    /// struct Careful: LanguageModelSession.DynamicProfileModifier {
    ///     func body(content: Content) -> some DynamicProfile {
    ///         content.temperature(0.2).maximumResponseTokens(200)
    ///     }
    /// }
    /// ```
    public protocol DynamicProfileModifier {
        /// The type of the modified profile.
        associatedtype Body: LanguageModelSession.DynamicProfile
        /// The profile `content` becomes.
        @DynamicProfileBuilder func body(content: Self.Content) -> Self.Body
        /// The profile being modified.
        typealias Content = DynamicProfileModifierContent<Self>
    }

    /// The profile a ``DynamicProfileModifier`` modifies.
    public struct DynamicProfileModifierContent<Modifier: DynamicProfileModifier>: DynamicProfile {
        let resolveContent: (inout ResolvedProfile) -> Void

        /// A primitive has no body.
        public var body: Never { fatalError("DynamicProfileModifierContent has no body.") }
    }

    /// A profile with a modifier applied.
    public struct ModifiedDynamicProfile<Content: DynamicProfile, Modifier: DynamicProfileModifier>: DynamicProfile {
        let content: Content
        let modifier: Modifier

        /// A primitive has no body.
        public var body: Never { fatalError("ModifiedDynamicProfile has no body.") }
    }
}

extension LanguageModelSession.DynamicProfile {
    /// A profile of instructions.
    public typealias Profile = LanguageModelSession.Profile
    /// A dynamic profile.
    public typealias DynamicProfile = LanguageModelSession.DynamicProfile
    /// A session property, read while the session works out the profile.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
}

extension LanguageModelSession.DynamicProfileModifier {
    /// A dynamic profile.
    public typealias DynamicProfile = LanguageModelSession.DynamicProfile
    /// A session property, read while the session works out the profile.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
}

extension Never: LanguageModelSession.DynamicProfile {}

public import Observation
import Synchronization

/// The values a session's dynamic instructions, profiles and tools share: your own, declared with
/// ``SessionPropertyEntry()``, and the session's ``history`` and ``rootDynamicInstructions``.
///
/// ```swift
/// extension SessionPropertyValues {
///     @SessionPropertyEntry var isPremiumUser: Bool = false
/// }
/// session.properties.isPremiumUser = true   // the next request's instructions see it
/// ```
///
/// Read them inside dynamic instructions, profiles and tools with ``LanguageModelSession/SessionProperty``.
public final class SessionPropertyValues: @unchecked Sendable {
    // @unchecked: every stored value is read and written under `storage`'s lock; values of non-Sendable types
    // are shared the way Apple's framework shares them, by the session that owns this object.
    private let storage = Mutex<Storage>(Storage())
    private let registrar = ObservationRegistrar()

    private struct Storage: @unchecked Sendable {
        // @unchecked: only touched under the enclosing Mutex.
        var values: [ObjectIdentifier: Any] = [:]
        var root: any DynamicInstructions = EmptyDynamicInstructions()
        var version = 0
        weak var owner: LanguageModelSession?
    }

    init() {}

    /// Connects the values to the session that owns them (for ``history``).
    func attach(to session: LanguageModelSession) {
        storage.withLock { $0.owner = session }
    }

    private var owner: LanguageModelSession? { storage.withLock { $0.owner } }

    /// The value for a key; its ``SessionPropertyKey/defaultValue`` until something sets it.
    public subscript<K: SessionPropertyKey>(key: K.Type) -> K.Value {
        get {
            registrar.access(self, keyPath: \.version)
            return storage.withLock { $0.values[ObjectIdentifier(key)] } as? K.Value ?? K.defaultValue
        }
        set {
            registrar.withMutation(of: self, keyPath: \.version) {
                storage.withLock {
                    $0.values[ObjectIdentifier(key)] = newValue
                    $0.version += 1
                }
            }
        }
    }

    /// A counter that changes with every stored value, for observation.
    var version: Int { storage.withLock { $0.version } }

    /// The session's transcript entries, without the leading instructions entry.
    ///
    /// Setting it while the session responds makes that request fail with
    /// ``LanguageModelSession/Error/transcriptMutationWhileResponding``.
    public var history: ArraySlice<Transcript.Entry> {
        get {
            registrar.access(self, keyPath: \.history)
            return owner?.transcript.history ?? []
        }
        set {
            registrar.withMutation(of: self, keyPath: \.history) {
                owner?.replaceHistory(with: newValue)
            }
        }
    }

    /// The dynamic instructions the session was created with; set it to change them from the next request on.
    public var rootDynamicInstructions: any DynamicInstructions {
        get {
            registrar.access(self, keyPath: \.rootDynamicInstructions)
            return storage.withLock { $0.root }
        }
        set {
            registrar.withMutation(of: self, keyPath: \.rootDynamicInstructions) {
                storage.withLock { $0.root = newValue }
            }
        }
    }

    /// The values of the session whose dynamic instructions, profile or tools are being evaluated.
    @TaskLocal static var current: SessionPropertyValues?

    /// Values for property wrappers read outside any session: every key at its default.
    static let detached = SessionPropertyValues()
}

extension SessionPropertyValues: Observable {}

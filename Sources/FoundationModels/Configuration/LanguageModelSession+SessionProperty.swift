extension LanguageModelSession {
    /// A property wrapper that reads and writes a value of the session's ``SessionPropertyValues``.
    ///
    /// Use it in dynamic instructions, profiles, modifiers and tools; the value is the one of the session that
    /// is evaluating them (every key's default outside a session).
    ///
    /// ```swift
    /// struct Greeting: DynamicInstructions {
    ///     @SessionProperty(\.customerName) var name
    ///     var body: some DynamicInstructions {
    ///         Instructions("Greet \(name) by name.")
    ///     }
    /// }
    /// ```
    @propertyWrapper
    public struct SessionProperty<Value> {
        private let keyPath: ReferenceWritableKeyPath<SessionPropertyValues, Value>

        /// The current value.
        public var wrappedValue: Value {
            get { (SessionPropertyValues.current ?? .detached)[keyPath: keyPath] }
            nonmutating set { (SessionPropertyValues.current ?? .detached)[keyPath: keyPath] = newValue }
        }

        /// A property for the value at `keyPath`.
        public init(_ keyPath: ReferenceWritableKeyPath<SessionPropertyValues, Value>) {
            self.keyPath = keyPath
        }
    }
}

// @unchecked: the only stored property is an immutable key path, which is safe to share.
extension LanguageModelSession.SessionProperty: @unchecked Sendable where Value: Sendable {}

extension Tool {
    /// A session property, read while the session calls the tool.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
}

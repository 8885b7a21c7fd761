extension GenerationSchema: CustomDebugStringConvertible {
    /// The schema as indented JSON Schema text, with properties in order.
    ///
    /// Not localized, and not meant for display to end users.
    public var debugDescription: String {
        JSONWriter.string(for: jsonSchema, prettyPrinted: true)
    }
}

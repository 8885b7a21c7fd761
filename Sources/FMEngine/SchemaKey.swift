package import FMDecoding

/// A schema document as a cache key, compared code point by code point.
///
/// Swift compares strings by canonical equivalence, so `"é"` (U+00E9) equals `"e\u{301}"`, while JSON and its
/// schemas keep them apart: a `const` of one is not met by the other. Keyed by the document itself, a grammar
/// compiled for one spelling would be handed to a request for the other.
package struct SchemaKey: Hashable, Sendable {
    /// The document's canonical text, as UTF-8.
    private let bytes: [UInt8]

    /// The key of `document`.
    package init(_ document: SchemaDocument) {
        bytes = Array(document.canonicalText.utf8)
    }
}

extension SchemaDocument {
    /// The document as text that is the same in every process and keeps every code point of its strings:
    /// definitions in name order (a dictionary's order changes from one process to the next).
    package var canonicalText: String {
        ([String(reflecting: root)] + definitions.sorted { $0.key < $1.key }.map { "\($0.key)=\(String(reflecting: $0.value))" })
            .joined(separator: "\u{1D}")
    }
}

package import FMDecoding

/// A schema document as a cache key, compared code point by code point.
///
/// Swift compares strings by canonical equivalence, so `"é"` (U+00E9) equals `"e\u{301}"`, while JSON and its
/// schemas keep them apart: a `const` of one is not met by the other. Keyed by the document itself, a grammar
/// compiled for one spelling would be handed to a request for the other. The document's own hash serves, since
/// strings of the same code points are equal to Swift too; only a match is walked again, string by string.
package struct SchemaKey: Hashable, Sendable {
    /// The document.
    let document: SchemaDocument

    /// The key of `document`.
    package init(_ document: SchemaDocument) {
        self.document = document
    }

    package static func == (a: SchemaKey, b: SchemaKey) -> Bool {
        a.document.isSpelled(like: b.document)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(document)
    }
}

extension SchemaDocument {
    /// Whether the two documents are equal with every string of the same code points.
    func isSpelled(like other: SchemaDocument) -> Bool {
        guard root.isSpelled(like: other.root), definitions.count == other.definitions.count else { return false }
        return definitions.allSatisfy { name, node in
            // The lookup finds a name Swift finds equal; its own spelling is compared as well.
            guard let index = other.definitions.index(forKey: name) else { return false }
            let (otherName, otherNode) = other.definitions[index]
            return sameCodePoints(name, otherName) && node.isSpelled(like: otherNode)
        }
    }
}

extension SchemaNode {
    /// Whether the two nodes are equal with every string of the same code points.
    func isSpelled(like other: SchemaNode) -> Bool {
        switch (self, other) {
        case (.string(let a), .string(let b)):
            return a.isSpelled(like: b)
        case (.integer(let aMinimum, let aMaximum), .integer(let bMinimum, let bMaximum)):
            return aMinimum == bMinimum && aMaximum == bMaximum
        case (.number(let aMinimum, let aMaximum), .number(let bMinimum, let bMaximum)):
            return aMinimum == bMinimum && aMaximum == bMaximum
        case (.boolean, .boolean), (.null, .null):
            return true
        case (.array(let aItems, let aMinimum, let aMaximum, let aUnique), .array(let bItems, let bMinimum, let bMaximum, let bUnique)):
            return aMinimum == bMinimum && aMaximum == bMaximum && aUnique == bUnique && aItems.isSpelled(like: bItems)
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy {
                sameCodePoints($0.name, $1.name) && $0.isOptional == $1.isOptional && $0.schema.isSpelled(like: $1.schema)
            }
        case (.dictionary(let a), .dictionary(let b)):
            return a.isSpelled(like: b)
        case (.tuple(let aPrefix, let aItems, let aMinimum, let aMaximum), .tuple(let bPrefix, let bItems, let bMinimum, let bMaximum)):
            guard aMinimum == bMinimum, aMaximum == bMaximum, aPrefix.count == bPrefix.count,
                  zip(aPrefix, bPrefix).allSatisfy({ $0.isSpelled(like: $1) }) else { return false }
            switch (aItems, bItems) {
            case (nil, nil): return true
            case (let a?, let b?): return a.isSpelled(like: b)
            default: return false
            }
        case (.anyOf(let a), .anyOf(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.isSpelled(like: $1) }
        case (.literal(let a), .literal(let b)), (.reference(let a), .reference(let b)):
            return sameCodePoints(a, b)
        default:
            return false
        }
    }
}

extension StringConstraint {
    /// Whether the two constraints are equal with every string of the same code points.
    func isSpelled(like other: StringConstraint) -> Bool {
        switch (self, other) {
        case (.any, .any):
            return true
        case (.choices(let a), .choices(let b)):
            return sameCodePoints(a, b)
        case (.pattern(let a), .pattern(let b)):
            return sameCodePoints(a, b)
        case (.matching(let aPatterns, let aMinimum, let aMaximum), .matching(let bPatterns, let bMinimum, let bMaximum)):
            return aMinimum == bMinimum && aMaximum == bMaximum && sameCodePoints(aPatterns, bPatterns)
        default:
            return false
        }
    }
}

/// Whether `a` and `b` hold the same code points (Swift's `==` would accept canonically equivalent ones).
private func sameCodePoints(_ a: String, _ b: String) -> Bool {
    a.utf8.elementsEqual(b.utf8)
}

/// Whether the lists hold strings of the same code points, in order.
private func sameCodePoints(_ a: [String], _ b: [String]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { sameCodePoints($0, $1) }
}

/// Per-generation bookkeeping for `uniqueItems` arrays: where each open element began and which elements each
/// array instance already holds.
///
/// An array instance is identified by its element frame's parent frame and its unique-array id, so the same
/// schema position reached again (a later object in a list) starts a fresh record when its first element begins.
struct UniquenessContext: Sendable {
    /// Output offset where the element of each open unique-element frame begins.
    var elementStart: [Int32: Int] = [:]
    /// Canonical texts of finished elements per array instance.
    var finished: [UInt64: Set<[UInt8]>] = [:]

    static func key(parent: Int32, array: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: parent)) << 32 | UInt64(UInt32(bitPattern: array))
    }

    /// The bytes of frame `frame`'s current element within `output`.
    func element(of frame: Int32, in output: [UInt8]) -> ArraySlice<UInt8> {
        let start = min(elementStart[frame] ?? output.count, output.count)
        return output[start...]
    }
}

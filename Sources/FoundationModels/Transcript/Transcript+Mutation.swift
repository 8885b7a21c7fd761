extension Transcript: MutableCollection {
    /// An entry.
    public typealias Element = Entry
    /// A contiguous range of entries.
    public typealias SubSequence = Slice<Transcript>
}

extension Transcript: RangeReplaceableCollection {
    /// Creates an empty transcript.
    public init() {
        entries = []
    }

    /// Replaces the entries in `subrange` with `newElements`.
    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: consuming C)
    where C.Element == Entry {
        entries.replaceSubrange(subrange, with: newElements)
    }
}

extension Transcript {
    /// The transcript entries excluding the leading instructions entry, if present.
    ///
    /// Reading skips the first entry when it is ``Entry/instructions(_:)``; every other entry, later
    /// instructions included, is part of the history. Writing replaces everything but that leading
    /// instructions entry.
    ///
    /// ```swift
    /// var transcript = session.transcript
    /// transcript.history = transcript.history.suffix(4)   // keep the instructions and the last two turns
    /// ```
    public var history: ArraySlice<Entry> {
        get { entries[historyStart...] }
        set { entries.replaceSubrange(historyStart..., with: newValue) }
    }

    private var historyStart: Int {
        if case .instructions? = entries.first { return 1 }
        return 0
    }
}

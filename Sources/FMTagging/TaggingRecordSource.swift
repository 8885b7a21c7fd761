import Synchronization

/// Where a ``TaggingRunner`` takes its records from, one at a time: a list, or input still arriving (a pipe).
///
/// The runner asks for one record at a time, from a child task, so results are written while the next record is
/// still on its way; a source whose input has not arrived yet keeps the runner waiting only for that.
public protocol TaggingRecordSource: Sendable {
    /// The next record, or `nil` once there are no more. Throws when the input cannot be read, and
    /// `CancellationError` when the waiting task is cancelled.
    func next() async throws -> TaggingRecord?
}

/// The records of a list, in order.
public final class TaggingRecordList: TaggingRecordSource {
    private let records: [TaggingRecord]
    private let position = Mutex(0)

    /// Creates a source of `records`.
    public init(_ records: [TaggingRecord]) {
        self.records = records
    }

    public func next() async throws -> TaggingRecord? {
        position.withLock { position in
            guard position < records.count else { return nil }
            defer { position += 1 }
            return records[position]
        }
    }
}

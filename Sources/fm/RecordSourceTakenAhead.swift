import FMTagging
import Synchronization

/// A record source whose first record was taken ahead, to learn whether the input holds any: that record, then
/// the rest of the source.
final class RecordSourceTakenAhead: TaggingRecordSource {
    private let rest: any TaggingRecordSource
    private let first: Mutex<TaggingRecord?>

    /// Gives `first`, then the records `rest` has left.
    init(first: TaggingRecord, rest: any TaggingRecordSource) {
        self.first = Mutex(first)
        self.rest = rest
    }

    /// The record taken ahead, then the source's next ones.
    func next() async throws -> TaggingRecord? {
        if let record = first.withLock({ first in defer { first = nil }; return first }) { return record }
        return try await rest.next()
    }
}

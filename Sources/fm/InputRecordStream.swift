import FMTagging
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The records of `fm tag`'s input file or standard input, read and parsed on a thread of their own as the input
/// arrives, so a job tags each line of a live pipe as it comes and holds only a few blocks of a large file.
///
/// Reading blocks the thread until input arrives, which must not happen on Swift's cooperative pool. The thread
/// reads ahead at most ``capacity`` records past those taken, then waits for the job to take more.
final class InputRecordStream: TaggingRecordSource {
    /// How many parsed records may wait to be taken.
    static let capacity = 256

    private struct State {
        var buffered: [TaggingRecord] = []
        var taken = 0
        /// Set once the input has ended (or could not be read); records buffered before it are still taken.
        var end: Result<Void, CommandFailure>?
        /// Whether the first block (or the end) has arrived: the input's encoding is known.
        var started = false
        var waiter: CheckedContinuation<TaggingRecord?, any Error>?
        var startWaiters: [CheckedContinuation<Void, any Error>] = []
        /// Set when the job wants no more records: the reading thread stops at the next one.
        var closed = false
    }

    private let state = Mutex(State())
    /// Counts the free places in the buffer; the reading thread waits on it when the job falls behind. Made at 0
    /// and raised to the capacity: libdispatch traps when a semaphore is freed below the value it was made with,
    /// as this one is when a job stops before taking every record read.
    private let space = DispatchSemaphore(value: 0)
    /// The input's name in messages: the file's path, or "standard input".
    let name: String

    /// Starts reading `path`, or standard input when it is `nil`.
    ///
    /// - Throws: ``CommandFailure`` when the file cannot be opened.
    init(path: String?) throws {
        name = path ?? "standard input"
        let descriptor: Int32
        if let path {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw CommandFailure("Cannot read \(path): \(String(cString: strerror(errno)))") }
        } else {
            descriptor = STDIN_FILENO
        }
        for _ in 0..<Self.capacity { space.signal() }
        let thread = Thread { [self] in read(descriptor) }
        thread.name = "fm-input"
        thread.start()
    }

    /// The records taken so far.
    var count: Int { state.withLock { $0.taken } }

    /// Waits until the input's first block (or its end) has arrived, so an input that cannot be read, or is in
    /// UTF-16, is refused before the output is opened.
    ///
    /// - Throws: ``CommandFailure`` when it cannot be read.
    func started() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let failure: CommandFailure?? = state.withLock { state in
                guard state.started else {
                    state.startWaiters.append(continuation)
                    return nil
                }
                if case .failure(let failure)? = state.end, state.buffered.isEmpty { return .some(failure) }
                return .some(nil)
            }
            switch failure {
            case .some(.some(let failure)): continuation.resume(throwing: failure)
            case .some(.none): continuation.resume()
            case .none: break
            }
        }
    }

    func next() async throws -> TaggingRecord? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TaggingRecord?, any Error>) in
                let answer: Result<TaggingRecord?, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if !state.buffered.isEmpty {
                        state.taken += 1
                        return .success(state.buffered.removeFirst())
                    }
                    switch state.end {
                    case .success?: return .success(nil)
                    case .failure(let failure)?: return .failure(failure)
                    case nil:
                        state.waiter = continuation
                        return nil
                    }
                }
                if let answer {
                    if case .success(.some) = answer { space.signal() }
                    continuation.resume(with: answer)
                }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }?.resume(throwing: CancellationError())
        }
    }

    /// The reading thread: blocks, line feeds, records.
    private func read(_ descriptor: Int32) {
        defer { if descriptor != STDIN_FILENO { Glibc.close(descriptor) } }
        var splitter = TaggingRecord.LineSplitter()
        var block = [UInt8](repeating: 0, count: 65_536)
        // The start of the input, held until it shows whether the text is UTF-16 or UTF-32.
        var head: [UInt8]? = []
        while true {
            let count = block.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return finish(.failure(CommandFailure("Cannot read \(name): \(String(cString: strerror(errno)))")))
            }
            var bytes = Array(block[0..<count])
            if var start = head {
                start += bytes
                // `InputFile.wideEncoding` decides from the first 64 bytes, or from all there are. A whole first line
                // without a NUL byte or a UTF-16 byte-order mark is not UTF-16 or UTF-32, so a live pipe's short
                // first line need not wait for more.
                let plainLine = start.contains(0x0A) && !start.contains(0) && !start.starts(with: [0xFF, 0xFE]) && !start.starts(with: [0xFE, 0xFF])
                guard start.count >= 64 || count == 0 || plainLine else {
                    head = start
                    continue
                }
                if let encoding = InputFile.wideEncoding(of: Data(start)) {
                    return finish(.failure(InputFile.wideTextFailure(name, encoding: encoding)))
                }
                head = nil
                bytes = start
                markStarted()
            }
            for line in splitter.lines(completedBy: bytes) {
                guard deliver(TaggingRecord.parse(line: line.bytes, lineNumber: line.number)) else { return finish(.success(())) }
            }
            if count == 0 {
                if let last = splitter.finish() { _ = deliver(TaggingRecord.parse(line: last.bytes, lineNumber: last.number)) }
                return finish(.success(()))
            }
        }
    }

    /// Stops reading: a job that has taken the records it wants leaves no thread waiting for space.
    func close() {
        state.withLock { $0.closed = true }
        space.signal()
    }

    /// Hands `record` to a waiting `next()`, or buffers it, once there is space; `false` once the stream is closed.
    private func deliver(_ record: TaggingRecord) -> Bool {
        space.wait()
        enum Handed { case closed, buffered, taken(CheckedContinuation<TaggingRecord?, any Error>) }
        let handed = state.withLock { state -> Handed in
            if state.closed { return .closed }
            guard let waiter = state.waiter else {
                state.buffered.append(record)
                return .buffered
            }
            state.waiter = nil
            state.taken += 1
            return .taken(waiter)
        }
        switch handed {
        case .closed:
            space.signal()
            return false
        case .buffered:
            return true
        case .taken(let waiter):
            // Taken at once, so its place is free again.
            space.signal()
            waiter.resume(returning: record)
            return true
        }
    }

    private func markStarted() {
        let waiters = state.withLock { state in
            state.started = true
            defer { state.startWaiters = [] }
            return state.startWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func finish(_ end: Result<Void, CommandFailure>) {
        let (waiter, startWaiters) = state.withLock { state in
            state.end = end
            state.started = true
            defer {
                state.waiter = nil
                state.startWaiters = []
            }
            return (state.waiter, state.startWaiters)
        }
        switch end {
        case .success:
            waiter?.resume(returning: nil)
            for waiter in startWaiters { waiter.resume() }
        case .failure(let failure):
            waiter?.resume(throwing: failure)
            for waiter in startWaiters { waiter.resume(throwing: failure) }
        }
    }
}
